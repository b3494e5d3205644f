package dev.delayjobs.partition;

import static dev.delayjobs.test.ClaimRequests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static dev.delayjobs.test.TestPartitions.names;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayQueueControl;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.JobInfo;
import dev.delayjobs.JobState;
import dev.delayjobs.PublishRequest;
import dev.delayjobs.actuate.DeadJobView;
import dev.delayjobs.actuate.DelayQueuesEndpoint;
import dev.delayjobs.actuate.QueueView;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.test.Recorder;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;
import dev.delayjobs.queue.QueueName;
import dev.delayjobs.queue.ClusterSlot;
import dev.delayjobs.queue.Partition;

/**
 * A queue laid out in 3 partitions on one Redis: every job handled once and none early by two
 * instances, the operations on one job by key, the counts and the dead set over all partitions, a
 * pause of every partition, and a change of the partition count refused while jobs remain.
 */
class PartitionedQueueTest {

    static final String PARTITIONS = "delay.queues.orders.partitions=3";

    static class Handlers {

        final Recorder recorder = new Recorder();

        @DelayedHandler(queue = "orders", concurrency = "4", maxAttempts = "1")
        void orders(DelayedJob<Integer> job) {
            if (job.payload() < 0) {
                throw new IllegalStateException("negative " + job.payload());
            }
            recorder.record(job.id(), job.dueAt(), job.attempt(), job.payload());
        }
    }

    /** With attempts to spare: a job recovered after its first attempt is delivered again. */
    static class RetryingHandler {

        final Recorder recorder = new Recorder();

        @DelayedHandler(queue = "orders", concurrency = "4", maxAttempts = "3")
        void orders(DelayedJob<Integer> job) {
            recorder.record(job.id(), job.dueAt(), job.attempt(), job.payload());
        }
    }

    @Test
    void jobsSpreadOverThePartitionsAreEachHandledOnceAndNoneEarlyByTwoInstances() {
        String prefix = TestRedis.uniquePrefix();
        try (ConfigurableApplicationContext first = TestApps.run(prefix, List.of(Handlers.class), PARTITIONS);
                ConfigurableApplicationContext second = TestApps.run(prefix, List.of(Handlers.class), PARTITIONS)) {
            DelayPublisher publisher = first.getBean(DelayPublisher.class);
            Random random = new Random(5);
            List<PublishRequest> requests = new ArrayList<>();
            for (int i = 0; i < 600; i++) {
                PublishRequest request = PublishRequest.of(i).delay(Duration.ofMillis(random.nextInt(1500)));
                requests.add(i % 2 == 0 ? request.key("order-" + i) : request);
            }
            List<String> ids = publisher.publishAll("orders", requests);
            for (int i = 0; i < 30; i++) {
                ids = new ArrayList<>(ids);
                ids.add(publisher.publish("orders", 1000 + i, Duration.ofMillis(random.nextInt(500))));
            }
            Recorder a = first.getBean(Handlers.class).recorder;
            Recorder b = second.getBean(Handlers.class).recorder;
            await().atMost(Duration.ofSeconds(60)).until(() -> a.total() + b.total() >= 630);

            Recorder.assertEachHandledOnceAndNoneEarly(ids, a, b);

            PartitionedStats stats = first.getBean(PartitionedQueues.class).stats(QueueName.of("orders"));
            assertThat(stats.partitions()).extracting(PartitionedStats.Partition::name)
                    .isEqualTo(names(QueueLayout.of(QueueName.of("orders"), 3)));
            assertThat(stats.partitions()).as("every partition had jobs")
                    .allSatisfy(p -> assertThat(p.stats().totals().get("completed")).isGreaterThan(100));
            assertThat(stats.total().totals().get("completed")).isEqualTo(630);
            assertThat(stats.total().instances()).as("each instance shown once").hasSize(2)
                    .allSatisfy(i -> assertThat(i.workers()).isEqualTo(4));
        }
    }

    @Test
    void aKeyedJobIsFoundRescheduledAndCancelledInItsPartitionAndTheQueueShowsAsOne() {
        String prefix = TestRedis.uniquePrefix();
        try (ConfigurableApplicationContext app = TestApps.run(prefix, List.of(Handlers.class), PARTITIONS,
                "management.endpoints.web.exposure.include=delayqueues")) {
            DelayPublisher publisher = app.getBean(DelayPublisher.class);
            for (int i = 0; i < 30; i++) {
                publisher.publish("orders", i, Duration.ofHours(1), "k-" + i);
            }
            for (int i = 0; i < 30; i++) {
                JobInfo job = publisher.find("orders", "k-" + i).orElseThrow();
                assertThat(job.queue()).isEqualTo("orders");
                assertThat(job.state()).isEqualTo(JobState.DELAYED);
                assertThat(job.payloadJson()).isEqualTo(Integer.toString(i));
            }
            assertThat(publisher.reschedule("orders", "k-1", Duration.ofHours(2))).isTrue();
            assertThat(publisher.find("orders", "k-1").orElseThrow().dueAt())
                    .isAfter(publisher.find("orders", "k-2").orElseThrow().dueAt().plus(Duration.ofMinutes(50)));
            assertThat(publisher.cancel("orders", "k-2")).isTrue();
            assertThat(publisher.find("orders", "k-2")).isEmpty();
            // published again with the same key: kept, not doubled, wherever it lands
            publisher.publish("orders", 99, Duration.ofHours(1), "k-3");
            assertThat(publisher.find("orders", "k-3").orElseThrow().payloadJson()).isEqualTo("3");

            // three jobs that fail their only attempt: dead, in whatever partitions their ids map to
            List<String> dead = new ArrayList<>();
            for (int i = 1; i <= 3; i++) {
                dead.add(publisher.publish("orders", -i, Duration.ZERO, "bad-" + i));
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> dead.stream()
                    .allMatch(id -> publisher.find("orders", id).map(j -> j.state() == JobState.DEAD).orElse(false)));

            DelayQueuesEndpoint endpoint = app.getBean(DelayQueuesEndpoint.class);
            QueueView view = endpoint.queues().queues().get("orders");
            assertThat(view.delayed()).isEqualTo(29);
            assertThat(view.dead()).isEqualTo(3);
            assertThat(view.partitions()).hasSize(3);
            assertThat(view.partitions().stream().mapToLong(QueueView.PartitionView::delayed).sum()).isEqualTo(29);
            assertThat(view.partitions()).extracting(QueueView.PartitionView::slot).doesNotHaveDuplicates();
            DelayQueuesEndpoint.QueueReport report = endpoint.queue("orders", 0, 2, null);
            assertThat(report.dead().total()).isEqualTo(3);
            assertThat(report.dead().jobs()).hasSize(2);
            DelayQueuesEndpoint.QueueReport second = endpoint.queue("orders", 1, 2, null);
            List<String> paged = new ArrayList<>(report.dead().jobs().stream().map(DeadJobView::id).toList());
            second.dead().jobs().forEach(j -> paged.add(j.id()));
            assertThat(paged).containsExactlyInAnyOrderElementsOf(dead);
            // by cursor over the three partitions: the page after the first goes on where it ended
            DelayQueuesEndpoint.QueueReport byCursor = endpoint.queue("orders", null, 2, report.dead().next());
            assertThat(byCursor.dead().jobs()).extracting(DeadJobView::id)
                    .containsExactlyElementsOf(second.dead().jobs().stream().map(DeadJobView::id).toList());
            assertThat(byCursor.dead().next()).as("not a full page").isNull();
            // a page deep down would make each partition read every dead job above it
            assertThatThrownBy(() -> endpoint.queue("orders", 2000, 50, null))
                    .isInstanceOf(org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException.class)
                    .hasMessageContaining("1000");
            assertThatThrownBy(() -> app.getBean(PartitionedQueues.class).deadPage(QueueName.of("orders"), 100_000, 50))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1000");
            assertThat(endpoint.act("orders", "delete-dead", null, true, null).affected()).isEqualTo(3);
            assertThat(endpoint.queues().queues().get("orders").dead()).isZero();

            @SuppressWarnings("unchecked")
            Map<String, Object> health = (Map<String, Object>) ((Map<String, Object>) app
                    .getBean(dev.delayjobs.actuate.DelayQueuesHealthIndicator.class).health().getDetails().get("queues"))
                    .get("orders");
            assertThat(health).containsEntry("delayed", 29L);
            @SuppressWarnings("unchecked")
            Map<String, Long> byPartition = (Map<String, Long>) health.get("oldestOverdueMillisByPartition");
            assertThat(byPartition).containsOnlyKeys(names(QueueLayout.of(QueueName.of("orders"), 3)));

            DelayQueueControl control = app.getBean(DelayQueueControl.class);
            assertThat(control.pause("orders")).isTrue();
            assertThat(control.state("orders").paused()).isTrue();
            assertThat(endpoint.queues().queues().get("orders").paused()).isTrue();
            assertThatThrownBy(() -> control.setRateLimit("orders", new dev.delayjobs.RateLimit(2, Duration.ofSeconds(1))))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("partitions (3)");
            assertThat(control.resume("orders")).isTrue();
            assertThat(control.state("orders").paused()).isFalse();
        }
    }

    @Test
    void aChangedPartitionCountIsRefusedWhileJobsRemainAndTakenOnceTheQueueIsEmpty() {
        String prefix = TestRedis.uniquePrefix();
        String id;
        try (ConfigurableApplicationContext app = TestApps.run(prefix, List.of(), PARTITIONS)) {
            id = app.getBean(DelayPublisher.class).publish("orders", 1, Duration.ofHours(1));
        }
        assertThatThrownBy(() -> TestApps.run(prefix, List.of(Handlers.class), "delay.queues.orders.partitions=2").close())
                .hasRootCauseInstanceOf(PartitionLayoutException.class)
                .rootCause().hasMessageContaining("laid out in 3 partition(s)").hasMessageContaining("asks for 2")
                .hasMessageContaining("1 waiting or running job(s)");
        // a publisher that does not configure the count follows what Redis records
        try (ConfigurableApplicationContext follower = TestApps.run(prefix, List.of())) {
            DelayPublisher publisher = follower.getBean(DelayPublisher.class);
            assertThat(publisher.find("orders", id)).isPresent();
            String second = publisher.publish("orders", 2, Duration.ofHours(1));
            assertThat(follower.getBean(PartitionedQueues.class).stats(QueueName.of("orders")).total().delayed()).isEqualTo(2);

            assertThat(publisher.cancel("orders", id)).isTrue();
            assertThat(publisher.cancel("orders", second)).isTrue();
            // an application that only looks jobs up, and has read the layout of 3 by now
            ConfigurableApplicationContext lookups = TestApps.run(prefix, List.of());
            DelayPublisher lookupPublisher = lookups.getBean(DelayPublisher.class);
            assertThat(lookupPublisher.find("orders", id)).isEmpty();
            // now empty: a consumer with 2 partitions lays it out again, and the follower, which still
            // routes by 3, is refused by the old partitions and routes by 2 from then on
            try (lookups; ConfigurableApplicationContext consumer = TestApps.run(prefix, List.of(Handlers.class),
                    "delay.queues.orders.partitions=2")) {
                String late = consumer.getBean(DelayPublisher.class).publish("orders", 7, Duration.ofHours(1), "late");
                // its lookups miss in the old layout, read the new one (at most once a second) and find
                // the job in its partition
                await().atMost(Duration.ofSeconds(5)).until(() -> lookupPublisher.find("orders", late).isPresent());
                assertThat(lookupPublisher.cancel("orders", late)).isTrue();
                for (int i = 0; i < 20; i++) {
                    publisher.publish("orders", i, Duration.ZERO);
                }
                Recorder recorder = consumer.getBean(Handlers.class).recorder;
                await().atMost(Duration.ofSeconds(20)).until(() -> recorder.total() >= 20);
                assertThat(recorder.counts()).hasSize(20);
                assertThat(follower.getBean(PartitionedQueues.class).layout(QueueName.of("orders")).size()).isEqualTo(2);
            }
        }
    }

    /** An instance that claimed jobs in every partition and stopped heartbeating: each partition's jobs come back. */
    @Test
    void jobsHeldInEveryPartitionByAVanishedInstanceAreRecoveredAndHandled() {
        String prefix = TestRedis.uniquePrefix();
        List<String> ids;
        try (ConfigurableApplicationContext publisherOnly = TestApps.run(prefix, List.of(), PARTITIONS)) {
            List<PublishRequest> requests = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                requests.add(PublishRequest.of(i).delay(Duration.ZERO));
            }
            ids = publisherOnly.getBean(DelayPublisher.class).publishAll("orders", requests);
            RedisJobStore store = publisherOnly.getBean(RedisJobStore.class);
            // a consumer that takes every job of every partition, with a 1 s lease it never renews
            int held = 0;
            for (Partition partition : QueueLayout.of(QueueName.of("orders"), 3).all()) {
                int taken = store.partition(partition).claim(request("vanished", 100, Duration.ofSeconds(1), 1)).jobs().size();
                assertThat(taken).as("jobs held in " + partition).isPositive();
                held += taken;
            }
            assertThat(held).isEqualTo(30);
        }
        try (ConfigurableApplicationContext consumer = TestApps.run(prefix, List.of(RetryingHandler.class), PARTITIONS)) {
            Recorder recorder = consumer.getBean(RetryingHandler.class).recorder;
            await().atMost(Duration.ofSeconds(20)).until(() -> recorder.total() >= 30);
            assertThat(recorder.counts()).containsOnlyKeys(ids);
            assertThat(recorder.deliveries()).allSatisfy(d -> assertThat(d.attempt()).as(d.id()).isEqualTo(2));
        }
    }

    @Test
    void partitionNamesSpreadOverTheSlotRangesAndJobsMapToOnePartitionByTheirId() {
        for (int n : new int[] { 2, 3, 6 }) {
            List<String> names = names(QueueLayout.of(QueueName.of("orders"), n));
            assertThat(names).hasSize(n).doesNotHaveDuplicates();
            for (int i = 0; i < n; i++) {
                int slot = ClusterSlot.of("{" + names.get(i) + "}");
                assertThat(slot * n / 16384).as(names.get(i) + " in slot " + slot).isEqualTo(i);
            }
        }
        assertThat(names(QueueLayout.of(QueueName.of("orders"), 1))).containsExactly("orders");
        QueueLayout layout = QueueLayout.of(QueueName.of("orders"), 3);
        int[] counts = new int[3];
        for (int i = 0; i < 3000; i++) {
            counts[layout.indexOf("order-" + i)]++;
            assertThat(layout.indexOf("order-" + i)).isEqualTo(layout.indexOf("order-" + i));
        }
        for (int count : counts) {
            assertThat(count).isBetween(850, 1150);
        }
        assertThatThrownBy(() -> names(QueueLayout.of(QueueName.of("orders"), 129))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("between 1 and 128");
    }
}
