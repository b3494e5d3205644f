package dev.delayjobs.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.PublishRequest;
import dev.delayjobs.redis.QueueStats;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The groups of a queue as the endpoint and the metrics show them, on real Redis: how many groups
 * have ready jobs, the largest ones, and the ready count including the grouped jobs; on a
 * queue of one partition and of three, and past the bound of groups measured per call.
 */
class GroupCountsTest {

    static final String[] SHOWN = { "management.endpoints.web.exposure.include=delayqueues", "delay.metrics.gauge-cache-ttl=0s" };

    @Test
    void theEndpointAndTheGaugeShowTheGroupsWithReadyJobsAndTheLargest() {
        try (ConfigurableApplicationContext app = TestApps.run(TestRedis.uniquePrefix(), List.of(), SHOWN)) {
            publishTwelveGroups(app.getBean(DelayPublisher.class), "merchants");
            assertTwelveGroups(app, "merchants");
        }
    }

    @Test
    void aPartitionedQueueShowsTheGroupsOfAllItsPartitions() {
        List<String> props = new ArrayList<>(List.of(SHOWN));
        props.add("delay.queues.merchants.partitions=3");
        try (ConfigurableApplicationContext app = TestApps.run(TestRedis.uniquePrefix(), List.of(), props.toArray(String[]::new))) {
            publishTwelveGroups(app.getBean(DelayPublisher.class), "merchants");
            assertTwelveGroups(app, "merchants");
            QueueView view = app.getBean(DelayQueuesEndpoint.class).queues().queues().get("merchants");
            assertThat(view.partitions()).hasSize(3);
        }
    }

    @Test
    void beyondTheGroupsMeasuredPerCallEveryGroupIsCountedAndTheFirstOnesMeasured() {
        int count = QueueStats.GROUPS_READ + 50;
        try (ConfigurableApplicationContext app = TestApps.run(TestRedis.uniquePrefix(), List.of(), SHOWN)) {
            List<PublishRequest> requests = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                requests.add(PublishRequest.of(i).group("tenant-" + i));
            }
            app.getBean(DelayPublisher.class).publishAll("many", requests);

            QueueView view = app.getBean(DelayQueuesEndpoint.class).queues().queues().get("many");
            assertThat(view.groups()).isEqualTo(count);
            assertThat(view.largestGroups()).hasSize(QueueView.LARGEST_GROUPS);
            assertThat(view.ready()).as("the ready jobs of the groups measured").isEqualTo(QueueStats.GROUPS_READ);
            assertThat(app.getBean(MeterRegistry.class).get("delay.queue.groups").tag("queue", "many").gauge().value())
                    .isEqualTo(count);
        }
    }

    @Test
    void theOldestWaitingJobOfAGroupIsTheQueuesOldestOverdue() {
        try (ConfigurableApplicationContext app = TestApps.run(TestRedis.uniquePrefix(), List.of(), SHOWN)) {
            DelayPublisher publisher = app.getBean(DelayPublisher.class);
            // no consumer: the grouped jobs wait in their groups' lists, the default group's is empty
            publisher.publishAll("overdue", List.of(PublishRequest.of(1).group("m-1").at(Instant.now().minusSeconds(120)),
                    PublishRequest.of(2).group("m-2").at(Instant.now().minusSeconds(30))));

            QueueView view = app.getBean(DelayQueuesEndpoint.class).queues().queues().get("overdue");
            assertThat(view.ready()).isEqualTo(2);
            assertThat(view.oldestOverdueMillis()).as("the head of group m-1, due 2 minutes ago")
                    .isGreaterThanOrEqualTo(120_000).isLessThan(600_000);
        }
    }

    /** 5 jobs of the default group, 30 of "big", 12 of "mid" and 1 of each of "small-0" to "small-9". */
    static void publishTwelveGroups(DelayPublisher publisher, String queue) {
        List<PublishRequest> requests = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            requests.add(PublishRequest.of(i));
        }
        for (int i = 0; i < 30; i++) {
            requests.add(PublishRequest.of(i).group("big"));
        }
        for (int i = 0; i < 12; i++) {
            requests.add(PublishRequest.of(i).group("mid"));
        }
        for (int i = 0; i < 10; i++) {
            requests.add(PublishRequest.of(i).group("small-" + i));
        }
        publisher.publishAll(queue, requests);
    }

    static void assertTwelveGroups(ConfigurableApplicationContext app, String queue) {
        DelayQueuesEndpoint endpoint = app.getBean(DelayQueuesEndpoint.class);
        QueueView view = endpoint.queues().queues().get(queue);
        assertThat(view.groups()).as("groups with ready jobs, the default group not counted").isEqualTo(12);
        assertThat(view.ready()).as("ready jobs, the grouped ones included").isEqualTo(5 + 30 + 12 + 10);
        assertThat(view.largestGroups()).hasSize(QueueView.LARGEST_GROUPS);
        assertThat(view.largestGroups().subList(0, 3)).containsExactly(new QueueView.GroupView("big", 30),
                new QueueView.GroupView("mid", 12), new QueueView.GroupView("small-0", 1));
        assertThat(endpoint.queue(queue, null, null, null).stats().largestGroups()).isEqualTo(view.largestGroups());
        assertThat(app.getBean(MeterRegistry.class).get("delay.queue.groups").tag("queue", queue).gauge().value()).isEqualTo(12);
        assertThat(app.getBean(MeterRegistry.class).get("delay.queue.jobs").tag("queue", queue).tag("state", "ready").gauge()
                .value()).isEqualTo(57);
    }
}
