package dev.delayjobs.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.JobInfo;
import dev.delayjobs.JobState;
import dev.delayjobs.PublishRequest;
import dev.delayjobs.ReactiveDelayPublisher;
import dev.delayjobs.actuate.DelayQueuesEndpoint;
import dev.delayjobs.queue.QueueName;
import dev.delayjobs.test.GroupOverlaps;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/**
 * Groups on a queue laid out in 3 partitions, on one Redis: a group's jobs all go to its group's
 * partition, so {@code group-concurrency} holds for the whole queue, claims stay fair between
 * groups, and a grouped job is still found, rescheduled, cancelled, requeued and deleted by its key
 * alone.
 */
@Tag("slow")
class PartitionedGroupsTest {

    static final String QUEUE = "tenants";
    static final String PARTITIONS = "delay.queues." + QUEUE + ".partitions=3";
    static final QueueLayout LAYOUT = QueueLayout.of(QueueName.of(QUEUE), 3);

    static GroupOverlaps seen = new GroupOverlaps();

    @BeforeEach
    void seenAfresh() {
        seen = new GroupOverlaps();
    }

    static class Handler {

        @DelayedHandler(queue = QUEUE, concurrency = "4", maxAttempts = "1")
        void handle(DelayedJob<String> job) {
            if (job.payload().startsWith("fail")) {
                throw new IllegalStateException("failing on purpose: " + job.payload());
            }
            String group = job.payload().substring(0, job.payload().indexOf('/'));
            seen.run(group, job.payload(), GroupOverlaps.working(group.startsWith("flood") ? 0 : 5));
        }
    }

    @Test
    void theLimitOfOneHoldsForTheWholeQueueNotPerPartition() {
        String prefix = TestRedis.uniquePrefix();
        String[] props = { PARTITIONS, "delay.queues." + QUEUE + ".group-concurrency=1" };
        try (ConfigurableApplicationContext first = TestApps.run(prefix, List.of(Handler.class), props);
                ConfigurableApplicationContext second = TestApps.run(prefix, List.of(Handler.class), props)) {
            List<PublishRequest> requests = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                for (String group : List.of("m1", "m2", "m3")) {
                    requests.add(PublishRequest.of(group + "/" + i).group(group));
                }
            }
            first.getBean(DelayPublisher.class).publishAll(QUEUE, requests);

            await().atMost(Duration.ofSeconds(60)).until(() -> seen.handled().size() >= requests.size());

            assertThat(seen.overlaps()).as("jobs of one group that ran at once").isEmpty();
            assertThat(seen.handled()).as("each job once").hasSize(120).doesNotHaveDuplicates();
            assertThat(seen.mostAtOnce()).as("groups ran side by side, so an overlap could have been seen").isGreaterThan(1);
        }
    }

    @Test
    void aSmallGroupSharingAFloodsPartitionIsServedBeforeTheFloodIsThrough() {
        // a small group in the flood's partition (served in turn by its claims) and one in another
        // (served by its own claimer, in turn with the flood's for the workers)
        String same = group(g -> LAYOUT.indexOf("x", g) == LAYOUT.indexOf("x", "flood"));
        String other = group(g -> LAYOUT.indexOf("x", g) != LAYOUT.indexOf("x", "flood"));
        String prefix = TestRedis.uniquePrefix();
        try (ConfigurableApplicationContext app = TestApps.run(prefix, List.of(Handler.class), PARTITIONS)) {
            Instant due = Instant.now().plusSeconds(2);
            List<PublishRequest> requests = new ArrayList<>();
            IntStream.range(0, 1500).forEach(i -> requests.add(PublishRequest.of("flood/" + i).group("flood").at(due)));
            for (String small : List.of(same, other)) {
                IntStream.range(0, 20).forEach(i -> requests.add(PublishRequest.of(small + "/" + i).group(small).at(due)));
            }
            app.getBean(DelayPublisher.class).publishAll(QUEUE, requests);

            await().atMost(Duration.ofSeconds(60)).until(() -> seen.handled().size() >= requests.size());

            List<String> order = seen.handled();
            int lastSmall = 0;
            for (int i = 0; i < order.size(); i++) {
                if (!order.get(i).startsWith("flood/")) {
                    lastSmall = i;
                }
            }
            long floodBefore = order.subList(0, lastSmall).stream().filter(n -> n.startsWith("flood/")).count();
            assertThat(floodBefore).as("flood jobs handled before the last small group's job").isLessThan(750);
        }
    }

    @Test
    void aGroupedJobLivesInItsGroupsPartitionAndIsFoundByItsKeyAlone() {
        String group = group(g -> LAYOUT.indexOf("x", g) != LAYOUT.indexOf("order-1"));
        String prefix = TestRedis.uniquePrefix();
        try (ConfigurableApplicationContext app = TestApps.run(prefix, List.of(Handler.class), PARTITIONS,
                "management.endpoints.web.exposure.include=delayqueues")) {
            DelayPublisher publisher = app.getBean(DelayPublisher.class);
            PartitionedQueues queues = app.getBean(PartitionedQueues.class);
            publisher.publish(QUEUE, PublishRequest.of(group + "/1").key("order-1").group(group).delay(Duration.ofHours(1)));
            for (int i = 0; i < 30; i++) {
                publisher.publish(QUEUE, PublishRequest.of(group + "/x").group(group).delay(Duration.ofHours(1)));
            }
            assertThat(queues.stats(QueueName.of(QUEUE)).partitions())
                    .as("every job of the group in the group's partition")
                    .extracting(p -> p.stats().delayed())
                    .containsExactlyElementsOf(IntStream.range(0, 3).mapToObj(i -> i == LAYOUT.indexOf("x", group) ? 31L : 0L)
                            .toList());

            JobInfo found = publisher.find(QUEUE, "order-1").orElseThrow();
            assertThat(found.group()).isEqualTo(group);
            assertThat(found.queue()).isEqualTo(QUEUE);
            ReactiveDelayPublisher reactive = app.getBean(ReactiveDelayPublisher.class);
            assertThat(reactive.find(QUEUE, "order-1").block()).isNotNull();
            // published again with its key and group: meets the job it made, kept
            publisher.publish(QUEUE, PublishRequest.of(group + "/again").key("order-1").group(group).delay(Duration.ofHours(1)));
            assertThat(publisher.find(QUEUE, "order-1").orElseThrow().payloadJson()).isEqualTo("\"" + group + "/1\"");
            assertThat(publisher.reschedule(QUEUE, "order-1", Duration.ofHours(3))).isTrue();
            assertThat(publisher.find(QUEUE, "order-1").orElseThrow().dueAt()).isAfter(found.dueAt().plus(Duration.ofMinutes(90)));
            assertThat(reactive.reschedule(QUEUE, "order-1", Duration.ofHours(2)).block()).isTrue();
            assertThat(publisher.cancel(QUEUE, "order-1")).isTrue();
            assertThat(publisher.find(QUEUE, "order-1")).isEmpty();
            assertThat(publisher.cancel(QUEUE, "order-1")).as("gone from every partition").isFalse();
            assertThat(reactive.cancel(QUEUE, "order-1").block()).isFalse();

            // dead grouped jobs, requeued and deleted by their keys from the endpoint
            String deadGroup = group(g -> LAYOUT.indexOf("x", g) != LAYOUT.indexOf("bad-1")
                    && LAYOUT.indexOf("x", g) != LAYOUT.indexOf("bad-2"));
            for (String key : List.of("bad-1", "bad-2")) {
                publisher.publish(QUEUE, PublishRequest.of("fail/" + key).key(key).group(deadGroup));
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> List.of("bad-1", "bad-2").stream()
                    .allMatch(k -> publisher.find(QUEUE, k).map(j -> j.state() == JobState.DEAD).orElse(false)));
            DelayQueuesEndpoint endpoint = app.getBean(DelayQueuesEndpoint.class);
            assertThat(endpoint.act(QUEUE, "delete-dead", "bad-1", null, null).affected()).isEqualTo(1);
            assertThat(publisher.find(QUEUE, "bad-1")).isEmpty();
            assertThat(endpoint.act(QUEUE, "requeue-dead", "bad-2", null, null).affected()).isEqualTo(1);
            assertThat(endpoint.act(QUEUE, "requeue-dead", "no-such-job", null, null).affected()).isZero();
        }
    }

    /** The first group name {@code g0}, {@code g1}, ... that {@code fits}. */
    static String group(java.util.function.Predicate<String> fits) {
        return IntStream.range(0, 1000).mapToObj(i -> "g" + i).filter(fits).findFirst().orElseThrow();
    }
}
