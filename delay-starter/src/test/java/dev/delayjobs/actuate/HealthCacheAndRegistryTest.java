package dev.delayjobs.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.delayjobs.test.TestPartitions.whole;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import dev.delayjobs.redis.NewJob;
import dev.delayjobs.partition.PartitionedQueues;
import dev.delayjobs.partition.QueueLayouts;
import dev.delayjobs.redis.QueueLayoutStore;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.test.TestRedis;
import dev.delayjobs.queue.QueueName;

/**
 * The health check answers from a short cache (it costs a Redis call per queue), and the queue
 * registry, a Redis set anyone with write access can add to, only shows valid queue names.
 */
class HealthCacheAndRegistryTest {

    static final RedissonClient redisson = TestRedis.sharedClient();

    @Test
    void oneCheckAnswersForTheCacheTtlAndZeroReadsEveryTime() {
        RedisJobStore store = new RedisJobStore(redisson, TestRedis.uniquePrefix());
        store.registerQueue(QueueName.of("q"));
        store.publish(whole("q"), List.of(new NewJob("a", true, 60_000, false, "1")));
        DelayQueuesHealthIndicator cached = new DelayQueuesHealthIndicator(queues(store), Duration.ofMinutes(1), Status.DOWN,
                Duration.ofHours(1));
        DelayQueuesHealthIndicator uncached = new DelayQueuesHealthIndicator(queues(store), Duration.ofMinutes(1), Status.DOWN,
                Duration.ZERO);
        assertThat(delayed(cached.health())).isEqualTo(1);
        assertThat(delayed(uncached.health())).isEqualTo(1);

        store.publish(whole("q"), List.of(new NewJob("b", true, 60_000, false, "2")));

        assertThat(delayed(cached.health())).as("the cached answer").isEqualTo(1);
        assertThat(delayed(uncached.health())).isEqualTo(2);
    }

    @Test
    void registryEntriesThatAreNoQueueNamesAreNotShown() {
        RedisJobStore store = new RedisJobStore(redisson, TestRedis.uniquePrefix());
        store.registerQueue(QueueName.of("real"));
        redisson.getSet(store.prefix() + ":queues", StringCodec.INSTANCE).add("bad\nname{x}");
        assertThat(store.knownQueues()).as("what is in Redis").hasSize(2);

        assertThat(RegisteredQueues.of(queues(store))).containsExactly(QueueName.of("real"));
        DelayQueuesHealthIndicator health = new DelayQueuesHealthIndicator(queues(store), Duration.ofMinutes(1), Status.DOWN,
                Duration.ZERO);
        assertThat(queues(health.health())).containsOnlyKeys("real");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Map<String, Object>> queues(Health health) {
        return (Map<String, Map<String, Object>>) health.getDetails().get("queues");
    }

    private static long delayed(Health health) {
        return (Long) queues(health).get("q").get("delayed");
    }

    private static PartitionedQueues queues(RedisJobStore store) {
        return new PartitionedQueues(store, new QueueLayouts(new QueueLayoutStore(redisson, store.prefix()), Map.of(), "test"));
    }
}
