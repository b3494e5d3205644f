package dev.delayjobs.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.embeddedredis.RedisCluster;
import dev.delayjobs.embeddedredis.RedisServerProcess;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/**
 * One queue's master hangs (SIGSTOP, no failover meanwhile): the queues on the other masters go on
 * delivering while it hangs. Before the watchdog gave each queue its own lane, the frozen queue's
 * sweep and transfer held both watchdog threads and the other queues' due jobs stayed delayed.
 */
@Tag("slow")
@Tag("topology")
class ClusterIsolationTest {

    static class Handlers {

        final List<String> deliveredWhileFrozen = new CopyOnWriteArrayList<>();
        final List<String> delivered = new CopyOnWriteArrayList<>();

        @DelayedHandler(queue = "${test.queues.frozen}")
        void onFrozenShard(DelayedJob<String> job) {
            delivered.add(job.payload());
        }

        @DelayedHandler(queue = "${test.queues.second}")
        void second(DelayedJob<String> job) {
            record(job.payload());
        }

        @DelayedHandler(queue = "${test.queues.third}")
        void third(DelayedJob<String> job) {
            record(job.payload());
        }

        private void record(String payload) {
            delivered.add(payload);
            if (FrozenMaster.now()) {
                deliveredWhileFrozen.add(payload);
            }
        }
    }

    @Test
    void queuesOnHealthyMastersKeepDeliveringWhileAnotherMasterHangs() {
        RedisCluster cluster = Topology.Servers.cluster();
        List<String> queues = queuesOnDistinctMasters(cluster);
        String frozenQueue = queues.get(0);
        RedisServerProcess frozenMaster = cluster.masterOf("{" + frozenQueue + "}");
        try (ConfigurableApplicationContext app = TestApps.runOn(Topology.CLUSTER.springProperties(), TestRedis.uniquePrefix(),
                List.of(Handlers.class), "test.queues.frozen=" + queues.get(0), "test.queues.second=" + queues.get(1),
                "test.queues.third=" + queues.get(2))) {
            Handlers handlers = app.getBean(Handlers.class);
            DelayPublisher publisher = app.getBean(DelayPublisher.class);
            for (String queue : queues) {
                publisher.publish(queue, "warm-up " + queue, Duration.ZERO);
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> handlers.delivered.size() == 3);

            // due while the master hangs: its transfer timer fires into the hang, as its sweeps do
            publisher.publish(frozenQueue, "stuck", Duration.ofMillis(1500));
            FrozenMaster.during(frozenMaster, () -> {
                List<String> expected = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    for (String queue : queues.subList(1, 3)) {
                        String payload = queue + "-" + i;
                        publisher.publish(queue, payload, Duration.ofMillis(3000 + 100L * i));
                        expected.add(payload);
                    }
                }
                await().atMost(Duration.ofSeconds(25)).until(() -> handlers.deliveredWhileFrozen.size() == expected.size());
                assertThat(handlers.deliveredWhileFrozen).containsExactlyInAnyOrderElementsOf(expected);
            });
            await().atMost(Duration.ofSeconds(30)).until(() -> handlers.delivered.contains("stuck"));
        }
    }

    /** Three queue names whose hash slots are served by three different masters. */
    private static List<String> queuesOnDistinctMasters(RedisCluster cluster) {
        Map<Integer, String> byMaster = new LinkedHashMap<>();
        for (int i = 0; byMaster.size() < 3 && i < 1000; i++) {
            String name = "isolated-" + i;
            byMaster.putIfAbsent(cluster.masterOf("{" + name + "}").port(), name);
        }
        assertThat(byMaster).as("queues on three masters").hasSize(3);
        return List.copyOf(byMaster.values());
    }
}
