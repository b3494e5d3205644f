package dev.delayjobs.bridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static dev.delayjobs.test.TestPartitions.whole;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.actuate.DelayQueuesHealthIndicator;
import dev.delayjobs.bridge.BridgeHandlers.Closed;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/**
 * The anchor's known fault: an element whose wake message never arrived stays in Redisson's
 * timeout set past its due time, since Redisson's transfer timer only runs when told to. In
 * compatibility mode the queue shows as overdue in health while that lasts, and the starter's
 * adopter moves the element itself once it is {@link ElementAdopter#OVERDUE_AFTER} late.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
@Tag("slow")
@Tag("bridge")
class BridgeStalledTransferTest {

    /** What {@code RDelayedQueue.offer} writes (Redisson 4.7's layout), without the wake message it publishes. */
    private static final String OFFER_WITHOUT_WAKE = """
            local value = struct.pack('Bc0Lc0', string.len(ARGV[2]), ARGV[2], string.len(ARGV[3]), ARGV[3])
            redis.call('zadd', KEYS[1], ARGV[1], value)
            redis.call('rpush', KEYS[2], value)
            return 1
            """;

    @Test
    void anElementRedissonNeverTransfersShowsOverdueAndIsStillHandled() {
        String list = "legacy-" + UUID.randomUUID();
        try (LegacyProducer producer = new LegacyProducer(list, StringCodec.INSTANCE);
                ConfigurableApplicationContext app = TestApps.run(TestRedis.uniquePrefix(), List.of(BridgeHandlers.class),
                        "test.queue=" + list, "delay.queues." + list + ".redisson-delayed-queue=" + list,
                        "delay.queues." + list + ".redisson-codec=string", "delay.health.overdue-threshold=1s",
                        "delay.health.cache-ttl=0s")) {
            RedisJobStore store = app.getBean(RedisJobStore.class);
            DelayQueuesHealthIndicator health = app.getBean(DelayQueuesHealthIndicator.class);
            Closed closed = app.getBean(Closed.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> !store.stats(whole(list)).instances().isEmpty());
            assertThat(health.health().getStatus()).isEqualTo(Status.UP);

            long dueAt = System.currentTimeMillis();
            offerWithoutWake(producer.client(), list, dueAt, "{\"orderId\":42,\"reason\":\"unpaid\"}");

            // Redisson's timer was never told: the element waits in the timeout set, and health says so
            await().atMost(Duration.ofSeconds(4)).pollInterval(Duration.ofMillis(100))
                    .until(() -> health.health().getStatus().equals(Status.DOWN));
            Health down = health.health();
            assertThat(String.valueOf(down.getDetails().get("overdue"))).contains(list);
            assertThat(closed.handledAt).doesNotContainKey(42L);
            assertThat(store.stats(whole(list)).bridge().delayed()).isEqualTo(1);

            // the adopter takes it from the timeout set once it is OVERDUE_AFTER late
            await().atMost(ElementAdopter.OVERDUE_AFTER.plusSeconds(10)).until(() -> closed.handledAt.containsKey(42L));
            assertThat(closed.handledAt.get(42L) - dueAt).isGreaterThanOrEqualTo(ElementAdopter.OVERDUE_AFTER.toMillis());
            await().atMost(Duration.ofSeconds(5)).until(() -> health.health().getStatus().equals(Status.UP));
            assertThat(store.stats(whole(list)).bridge().delayed()).isZero();
        }
    }

    private static void offerWithoutWake(RedissonClient client, String list, long dueAt, String element) {
        RScript script = client.getScript(StringCodec.INSTANCE);
        script.eval(RScript.Mode.READ_WRITE, OFFER_WITHOUT_WAKE, RScript.ReturnType.LONG,
                List.of("redisson_delay_queue_timeout:{" + list + "}", "redisson_delay_queue:{" + list + "}"),
                Long.toString(dueAt), UUID.randomUUID().toString().substring(0, 8), element);
    }
}
