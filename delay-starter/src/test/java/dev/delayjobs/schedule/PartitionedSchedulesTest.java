package dev.delayjobs.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.redisson.client.codec.StringCodec;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.JobState;
import dev.delayjobs.Recurring;
import dev.delayjobs.partition.QueueLayout;
import dev.delayjobs.queue.QueueName;
import dev.delayjobs.test.Http;
import dev.delayjobs.test.Recorder;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;
import tools.jackson.databind.JsonNode;

/**
 * Schedules of a queue laid out in partitions: held by its first partition with their ticks' jobs,
 * one job per tick across two instances, handled, found by id, and listed by the endpoint.
 */
@Tag("slow")
class PartitionedSchedulesTest {

    static class Split {

        final Recorder recorder = new Recorder();

        @DelayedHandler(queue = "split", concurrency = "4")
        @Recurring(name = "every-second", fixedRate = "1s")
        void run(DelayedJob<Map<String, Object>> tick) {
            recorder.record(tick.id(), tick.dueAt(), tick.attempt(), tick.payload());
        }
    }

    @Test
    void ticksOfAPartitionedQueueFireOnceEachAreHandledFoundAndListed() {
        String prefix = TestRedis.uniquePrefix();
        String[] props = { "delay.queues.split.partitions=3", "delay.queues.hours.partitions=3", "management.endpoints.web.exposure.include=delayqueues" };
        try (ConfigurableApplicationContext one = TestApps.runWeb(prefix, List.of(Split.class), props);
                ConfigurableApplicationContext two = TestApps.runWeb(prefix, List.of(Split.class), props)) {
            Recorder first = one.getBean(Split.class).recorder;
            Recorder second = two.getBean(Split.class).recorder;
            one.getBean(DelaySchedules.class).create("split", "dynamic", ScheduleSpec.fixedRate(Duration.ofSeconds(1),
                    Misfire.FIRE_ONE), Map.of("customer", 7));

            await().atMost(Duration.ofSeconds(20)).until(() -> ticks(first, second, "every-second@") >= 4
                    && ticks(first, second, "dynamic@") >= 4);

            List<Recorder.Delivery> all = new java.util.ArrayList<>(first.deliveries());
            all.addAll(second.deliveries());
            Set<String> ids = new HashSet<>();
            assertThat(all).allSatisfy(d -> {
                assertThat(ids.add(d.id())).as("one job per tick: %s", d.id()).isTrue();
                assertThat(d.handledAt()).isAfterOrEqualTo(d.dueAt());
                assertThat(d.attempt()).isEqualTo(1);
            });
            // the ticks spread over every partition by id, yet all are stored in the first, with the schedules
            QueueLayout layout = QueueLayout.of(QueueName.of("split"), 3);
            assertThat(ids.stream().map(layout::indexOf).distinct().count()).as("ids map to several partitions").isGreaterThan(1);
            String home = layout.schedules().hashTag();
            assertThat(TestRedis.sharedClient().getMap(prefix + ":" + home + ":schedules", StringCodec.INSTANCE).keySet())
                    .containsExactlyInAnyOrder("every-second", "dynamic");

            // a tick's job is found and cancelled by its id, whatever partition the id maps to
            DelaySchedules schedules = one.getBean(DelaySchedules.class);
            // (on a queue of its own, nobody consuming it, so that the fast forward leaves the others alone)
            schedules.create("hours", "hourly", ScheduleSpec.fixedRate(Duration.ofHours(1), Misfire.FIRE_ONE), Map.of());
            long firstTick = schedules.list("hours", "0", 100).schedules().stream().filter(s -> s.name().equals("hourly"))
                    .findFirst().orElseThrow().nextTick().toEpochMilli();
            assertThat(one.getBean(ScheduleTimer.class).publishTicksWithin("hours", Duration.ofHours(10))).isGreaterThanOrEqualTo(10);
            DelayPublisher publisher = two.getBean(DelayPublisher.class);
            List<String> elsewhere = new java.util.ArrayList<>();
            for (int i = 0; i < 10; i++) {
                String id = "hourly@" + (firstTick + i * 3_600_000L);
                assertThat(publisher.find("hours", id)).as(id).hasValueSatisfying(j -> assertThat(j.state()).isEqualTo(JobState.DELAYED));
                if (QueueLayout.of(QueueName.of("hours"), 3).indexOf(id) != 0) {
                    elsewhere.add(id);
                }
            }
            assertThat(elsewhere).isNotEmpty();
            assertThat(publisher.cancel("hours", elsewhere.get(0))).isTrue();
            assertThat(publisher.find("hours", elsewhere.get(0))).isEmpty();

            JsonNode page = new Http(one).get("/actuator/delayqueues/split/schedules").json();
            Set<String> listed = new HashSet<>();
            page.path("schedules").forEach(s -> {
                listed.add(s.path("name").asString());
                assertThat(s.path("nextTick").isNull()).isFalse();
            });
            assertThat(listed).containsExactlyInAnyOrder("every-second", "dynamic");
            await().atMost(Duration.ofSeconds(5)).until(() -> {
                JsonNode again = new Http(one).get("/actuator/delayqueues/split/schedules").json();
                for (JsonNode s : again.path("schedules")) {
                    if (!"handled".equals(s.path("lastOutcome").path("outcome").asString())) {
                        return false;
                    }
                }
                return true;
            });
        }
    }

    private static int ticks(Recorder a, Recorder b, String prefix) {
        return (int) (a.deliveries().stream().filter(d -> d.id().startsWith(prefix)).count()
                + b.deliveries().stream().filter(d -> d.id().startsWith(prefix)).count());
    }
}
