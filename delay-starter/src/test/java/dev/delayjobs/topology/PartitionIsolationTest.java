package dev.delayjobs.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static dev.delayjobs.test.TestPartitions.names;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.embeddedredis.RedisCluster;
import dev.delayjobs.embeddedredis.RedisServerProcess;
import dev.delayjobs.partition.PartitionedQueues;
import dev.delayjobs.partition.QueueLayout;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;
import dev.delayjobs.queue.QueueName;

/**
 * One partition's master hangs (SIGSTOP, no failover meanwhile): the jobs of the queue's other
 * partitions, on the other masters, go on being delivered while it hangs, and the frozen
 * partition's job is delivered once its master is back.
 */
@Tag("slow")
@Tag("topology")
class PartitionIsolationTest {

    static class Handlers {

        final List<String> delivered = new CopyOnWriteArrayList<>();
        final List<String> deliveredWhileFrozen = new CopyOnWriteArrayList<>();

        @DelayedHandler(queue = "spread", concurrency = "6")
        void spread(DelayedJob<String> job) {
            delivered.add(job.id());
            if (FrozenMaster.now()) {
                deliveredWhileFrozen.add(job.id());
            }
        }
    }

    @Test
    void thePartitionsOnHealthyMastersKeepDeliveringWhileOnePartitionsMasterHangs() {
        RedisCluster cluster = Topology.Servers.cluster();
        String prefix = TestRedis.uniquePrefix();
        List<String> redis = new ArrayList<>(Topology.CLUSTER.springProperties());
        redis.add("delay.queues.spread.partitions=3");
        try (ConfigurableApplicationContext app = TestApps.runOn(redis, prefix, List.of(Handlers.class))) {
            Handlers handlers = app.getBean(Handlers.class);
            DelayPublisher publisher = app.getBean(DelayPublisher.class);
            QueueLayout layout = app.getBean(PartitionedQueues.class).layout(QueueName.of("spread"));
            List<List<String>> keys = keysByPartition(layout, 21);
            for (List<String> partitionKeys : keys) {
                publisher.publish("spread", "warm-up", Duration.ZERO, partitionKeys.get(0));
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> handlers.delivered.size() == 3);

            RedisServerProcess frozenMaster = cluster.masterOf(prefix + ":{" + names(layout).get(0) + "}:jobs");
            // due while the master hangs: partition 0's timer and claimer run into the hang
            publisher.publish("spread", "stuck", Duration.ofMillis(1500), keys.get(0).get(1));
            FrozenMaster.during(frozenMaster, () -> {
                List<String> expected = new ArrayList<>();
                for (int i = 1; i <= 20; i++) {
                    for (List<String> partitionKeys : keys.subList(1, 3)) {
                        String key = partitionKeys.get(i);
                        publisher.publish("spread", "job", Duration.ofMillis(3000 + 100L * i), key);
                        expected.add(key);
                    }
                }
                await().atMost(Duration.ofSeconds(25)).until(() -> handlers.deliveredWhileFrozen.size() == expected.size());
                assertThat(handlers.deliveredWhileFrozen).containsExactlyInAnyOrderElementsOf(expected);
            });
            await().atMost(Duration.ofSeconds(30)).until(() -> handlers.delivered.contains(keys.get(0).get(1)));
        }
    }

    /** {@code count} business keys per partition, each mapping to that partition. */
    private static List<List<String>> keysByPartition(QueueLayout layout, int count) {
        List<List<String>> keys = new ArrayList<>();
        for (int p = 0; p < layout.size(); p++) {
            keys.add(new ArrayList<>());
        }
        for (int i = 0; keys.stream().anyMatch(k -> k.size() < count); i++) {
            String key = "order-" + i;
            List<String> partitionKeys = keys.get(layout.indexOf(key));
            if (partitionKeys.size() < count) {
                partitionKeys.add(key);
            }
        }
        return keys;
    }
}
