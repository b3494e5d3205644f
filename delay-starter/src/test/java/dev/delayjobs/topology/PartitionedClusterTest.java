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
import dev.delayjobs.partition.QueueLayout;
import dev.delayjobs.test.GroupOverlaps;
import dev.delayjobs.test.Recorder;
import dev.delayjobs.test.TestRedis;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.queue.QueueName;

/**
 * One queue in 3 partitions on the 3-master cluster: each partition is served by another master,
 * and every job, spread over them, is handled once and none early by two instances; grouped jobs
 * published over the masters keep {@code group-concurrency=1} for the whole queue.
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

    static final GroupOverlaps seen = new GroupOverlaps();

    static class GroupedHandler {

        @DelayedHandler(queue = "tenants", concurrency = "6")
        void tenants(DelayedJob<String> job) {
            String group = job.payload().substring(0, job.payload().indexOf('/'));
            seen.run(group, job.payload(), GroupOverlaps.working(5));
        }
    }

    @Test
    void groupedJobsOverTheThreeMastersNeverRunTwoOfOneGroupAtOnce() {
        String prefix = TestRedis.uniquePrefix();
        List<String> redis = new ArrayList<>(Topology.CLUSTER.springProperties());
        redis.add("delay.queues.tenants.partitions=3");
        redis.add("delay.queues.tenants.group-concurrency=1");
        QueueLayout layout = QueueLayout.of(QueueName.of("tenants"), 3);
        List<String> groups = List.of("m0", "m1", "m2", "m3", "m4", "m5");
        assertThat(groups).as("groups in each partition").extracting(g -> layout.indexOf("x", g)).contains(0, 1, 2);
        try (ConfigurableApplicationContext first = TestApps.runOn(redis, prefix, List.of(GroupedHandler.class));
                ConfigurableApplicationContext second = TestApps.runOn(redis, prefix, List.of(GroupedHandler.class))) {
            List<PublishRequest> requests = new ArrayList<>();
            for (int i = 0; i < 25; i++) {
                for (String group : groups) {
                    requests.add(PublishRequest.of(group + "/" + i).group(group));
                }
            }
            first.getBean(DelayPublisher.class).publishAll("tenants", requests);
            await().atMost(Duration.ofSeconds(60)).until(() -> seen.handled().size() >= requests.size());

            assertThat(seen.overlaps()).as("jobs of one group that ran at once").isEmpty();
            assertThat(seen.handled()).as("each job once").hasSize(150).doesNotHaveDuplicates();
            assertThat(seen.mostAtOnce()).as("groups ran side by side").isGreaterThan(1);
            PartitionedStats after = first.getBean(PartitionedQueues.class).stats(QueueName.of("tenants"));
            for (int i = 0; i < 3; i++) {
                int index = i;
                long groupsThere = groups.stream().filter(g -> layout.indexOf("x", g) == index).count();
                assertThat(after.partitions().get(i).stats().totals().get("completed")).as("jobs handled in partition " + i)
                        .isEqualTo(25 * groupsThere);
            }
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
