package dev.delayjobs.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.test.Recorder;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/** A job whose wake message never came (lost pub/sub message) is delivered by the sweep. */
class SweepWithoutWakeTest {

    static class Handler {

        final Recorder recorder = new Recorder();

        @DelayedHandler(queue = "silent")
        void handle(DelayedJob<String> job) {
            recorder.record(job.id(), job.dueAt(), job.attempt(), job.payload());
        }
    }

    @Test
    void delayedJobWrittenWithoutWakeMessageIsDeliveredByTheSweep() {
        String prefix = TestRedis.uniquePrefix();
        RedissonClient redisson = TestRedis.newClient();
        try (ConfigurableApplicationContext context = TestApps.run(prefix, List.of(Handler.class),
                "delay.sweep-interval=300ms")) {
            QueueKeys keys = new QueueKeys(prefix, "silent");
            long now = System.currentTimeMillis();
            long due = now + 200;
            // what publish.lua stores, minus the PUBLISH on the wake channel
            redisson.getMap(keys.jobs(), StringCodec.INSTANCE).put("quiet", "1," + Long.toString(due, 36) + "," + Long.toString(due - now, 36) + "|\"hello\"");
            redisson.getScoredSortedSet(keys.delayed(), StringCodec.INSTANCE).add(due, "quiet");

            Recorder recorder = context.getBean(Handler.class).recorder;
            await().atMost(Duration.ofSeconds(10)).until(() -> recorder.count("quiet") == 1);
            Recorder.Delivery delivery = recorder.deliveries().get(0);
            assertThat(delivery.payload()).isEqualTo("hello");
            assertThat(delivery.handledAt().toEpochMilli()).isGreaterThanOrEqualTo(due);
        }
        finally {
            redisson.shutdown();
        }
    }
}
