package dev.delayjobs.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static dev.delayjobs.test.TestPartitions.whole;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayedHandler;
import dev.delayjobs.redis.QueueStats;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/**
 * Compatibility mode on a Redis Cluster and on Sentinel, with Redisson's defaults (replica reads):
 * elements offered to an {@code RDelayedQueue} with plain Redisson reach the handler once each,
 * none early; on a cluster, a queue whose keys would not share the list's slot is refused at startup.
 */
@Tag("slow")
@Tag("topology")
class BridgeTopologyTest {

    record Closing(long orderId) {
    }

    static class Handler {

        final Map<Long, Long> handledAt = new ConcurrentHashMap<>();
        final Set<Long> twice = ConcurrentHashMap.newKeySet();

        @DelayedHandler(queue = "${test.queue}", concurrency = "4")
        void close(Closing closing) {
            if (handledAt.putIfAbsent(closing.orderId(), System.currentTimeMillis()) != null) {
                twice.add(closing.orderId());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Topology.class)
    void elementsOfferedByPlainRedissonAreHandledOnceAndNoneEarly(Topology topology) {
        String list = "legacy-orders-" + topology.name().toLowerCase(java.util.Locale.ROOT) + "-" + System.nanoTime();
        // the queue named after the list: on a cluster both then hash to the same slot
        try (ConfigurableApplicationContext app = TestApps.runOn(topology.springProperties(), TestRedis.uniquePrefix(),
                List.of(Handler.class), "test.queue=" + list, "delay.queues." + list + ".redisson-delayed-queue=" + list,
                "delay.queues." + list + ".redisson-codec=string")) {
            RedissonClient redisson = app.getBean(RedissonClient.class);
            RDelayedQueue<String> old = redisson.getDelayedQueue(redisson.getBlockingQueue(list, StringCodec.INSTANCE));
            Random random = new Random(5);
            Map<Long, Long> dueAt = new HashMap<>();
            for (long id = 0; id < 200; id++) {
                long delay = random.nextInt(2000);
                dueAt.put(id, System.currentTimeMillis() + delay);
                old.offer("{\"orderId\":" + id + "}", delay, TimeUnit.MILLISECONDS);
            }
            Handler handler = app.getBean(Handler.class);
            await().atMost(Duration.ofSeconds(60)).until(() -> handler.handledAt.size() == 200);

            assertThat(handler.twice).isEmpty();
            dueAt.forEach((id, due) -> assertThat(handler.handledAt.get(id)).as("order " + id).isGreaterThanOrEqualTo(due));
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                QueueStats stats = app.getBean(RedisJobStore.class).stats(whole(list));
                assertThat(stats.bridge().delayed() + stats.bridge().ready()).isZero();
                assertThat(stats.totals().get("completed")).isEqualTo(200);
            });
        }
    }

    @Test
    void onAClusterAQueueNotInTheListsSlotIsRefusedAtStartup() {
        Throwable failure = null;
        try (ConfigurableApplicationContext app = TestApps.runOn(Topology.CLUSTER.springProperties(), TestRedis.uniquePrefix(),
                List.of(Handler.class), "test.queue=orders-renamed", "delay.queues.orders-renamed.redisson-delayed-queue=orders",
                "delay.queues.orders-renamed.redisson-codec=string")) {
            // not reached
        }
        catch (RuntimeException ex) {
            failure = ex;
        }
        assertThat(failure).isNotNull();
        Throwable root = failure;
        while (root.getCause() != null && !(root instanceof InvalidConfigurationPropertyValueException)) {
            root = root.getCause();
        }
        assertThat(root).isInstanceOf(InvalidConfigurationPropertyValueException.class)
                .hasMessageContaining("delay.queues.orders-renamed.redisson-delayed-queue")
                .hasMessageContaining("must hash to the same slot");
    }
}
