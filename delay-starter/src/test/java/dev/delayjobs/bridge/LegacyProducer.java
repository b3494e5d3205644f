package dev.delayjobs.bridge;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.redisson.Redisson;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.Codec;
import org.redisson.config.Config;

import dev.delayjobs.test.TestRedis;

/**
 * A producer the way services that predate the starter write: plain Redisson, its own client with
 * default settings but the codec, {@code getDelayedQueue(getBlockingQueue(list)).offer(...)}.
 */
final class LegacyProducer implements AutoCloseable {

    private final RedissonClient redisson;
    private final RDelayedQueue<Object> queue;

    LegacyProducer(String list, Codec codec) {
        Config config = new Config();
        config.useSingleServer().setAddress("redis://" + TestRedis.address());
        config.setCodec(codec);
        this.redisson = Redisson.create(config);
        this.queue = redisson.getDelayedQueue(redisson.getBlockingQueue(list, codec));
    }

    /** Offers {@code element}; returns when it is due, epoch ms of this JVM's clock (the one Redisson uses). */
    long offer(Object element, Duration delay) {
        long dueAt = System.currentTimeMillis() + delay.toMillis();
        queue.offer(element, delay.toMillis(), TimeUnit.MILLISECONDS);
        return dueAt;
    }

    RedissonClient client() {
        return redisson;
    }

    @Override
    public void close() {
        queue.destroy();
        redisson.shutdown();
    }
}
