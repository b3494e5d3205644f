package dev.delayjobs.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import dev.delayjobs.embeddedredis.RedisServerProcess;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.redis.StoredJob;

/**
 * Pending acks are bounded: while Redis does not answer, the acker falls behind, and once
 * {@link AckBatcher#MAX_PENDING} acks wait, the next worker waits too instead of queueing without
 * bound; it goes on as soon as Redis answers again.
 */
class AckBackpressureTest {

    @Test
    void aWorkerWaitsOnceTheMaximumOfPendingAcksIsReached() throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.start()) {
            Config config = new Config();
            config.useSingleServer().setAddress(redis.url());
            RedissonClient redisson = Redisson.create(config);
            AtomicInteger settled = new AtomicInteger();
            AckBatcher acks = new AckBatcher("q", new RedisJobStore(redisson, "bp"), "i1", job -> settled.incrementAndGet(),
                    lost -> settled.addAndGet(lost.size()));
            try {
                redis.pause();
                // more acks than the acker's batch and the queue hold together: the adding worker must wait
                int total = AckBatcher.MAX_PENDING + 2 * AckBatcher.MAX_BATCH + 1;
                CompletableFuture<Void> worker = CompletableFuture.runAsync(() -> {
                    for (int i = 0; i < total; i++) {
                        acks.add(job("j" + i));
                    }
                });
                await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> !worker.isDone());

                redis.resume();
                worker.get(120, java.util.concurrent.TimeUnit.SECONDS);
                await().atMost(Duration.ofSeconds(120)).until(() -> settled.get() == total);
                assertThat(worker).isDone();
            }
            finally {
                redis.resume();
                acks.stop(Duration.ofSeconds(10));
                redisson.shutdown();
            }
        }
    }

    private static StoredJob job(String id) {
        return new StoredJob(id, "1", 1, 0, 0, "1", Map.of());
    }
}
