package dev.delayjobs.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.PublishRequest;
import dev.delayjobs.embeddedredis.RedisServerProcess;
import dev.delayjobs.partition.PartitionedQueues;
import dev.delayjobs.partition.PartitionedStats;
import dev.delayjobs.test.Recorder;
import dev.delayjobs.test.TestRedis;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.queue.QueueName;

/**
 * One queue in 3 partitions on the 3-master cluster: each partition is served by another master,
 * and every job, spread over them, is handled once and none early by two instances.
 */
@Tag("slow")
@Tag("topology")
class PartitionedClusterTest {

    static class Handlers {

        final Recorder recorder = new Recorder();

        @DelayedHandler(queue = "hot", concurrency = "6")
        void hot(DelayedJob<Integer> job) {
            recorder.record(job.id(), job.dueAt(), job.attempt(), job.payload());
        }
    }

    @Test
    void thePartitionsOfOneQueueLandOnThreeMastersAndEveryJobIsHandledOnce() {
        String prefix = TestRedis.uniquePrefix();
        List<String> redis = new ArrayList<>(Topology.CLUSTER.springProperties());
        redis.add("delay.queues.hot.partitions=3");
        try (ConfigurableApplicationContext first = TestApps.runOn(redis, prefix, List.of(Handlers.class));
                ConfigurableApplicationContext second = TestApps.runOn(redis, prefix, List.of(Handlers.class))) {
            PartitionedStats layout = first.getBean(PartitionedQueues.class).stats(QueueName.of("hot"));
            Set<Integer> masters = new HashSet<>();
            for (PartitionedStats.Partition partition : layout.partitions()) {
                RedisServerProcess master = Topology.Servers.cluster().masterOf(prefix + ":{" + partition.name() + "}:jobs");
                masters.add(master.port());
            }
            assertThat(masters).as("masters serving the 3 partitions").hasSize(3);

            DelayPublisher publisher = first.getBean(DelayPublisher.class);
            Random random = new Random(3);
            List<PublishRequest> requests = new ArrayList<>();
            for (int i = 0; i < 900; i++) {
                requests.add(PublishRequest.of(i).delay(Duration.ofMillis(random.nextInt(1500))).key("hot-" + i));
            }
            List<String> ids = publisher.publishAll("hot", requests);
            Recorder a = first.getBean(Handlers.class).recorder;
            Recorder b = second.getBean(Handlers.class).recorder;
            await().atMost(Duration.ofSeconds(60)).until(() -> a.total() + b.total() >= 900);

            Recorder.assertEachHandledOnceAndNoneEarly(ids, a, b);
            PartitionedStats after = first.getBean(PartitionedQueues.class).stats(QueueName.of("hot"));
            assertThat(after.total().totals().get("completed")).isEqualTo(900);
            assertThat(after.partitions()).allSatisfy(p -> assertThat(p.stats().totals().get("completed")).isGreaterThan(200));
        }
    }
}
