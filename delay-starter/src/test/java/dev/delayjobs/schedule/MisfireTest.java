package dev.delayjobs.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.queue.QueueName;
import dev.delayjobs.redis.ScheduleStore;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/**
 * The misfire policies after downtime, on real Redis: three schedules of one second whose stored
 * tick is 10.5 s in the past, as when no instance ran the timer for that long. {@code FIRE_ALL}
 * makes a job for every missed tick, {@code FIRE_ONE} one (the first missed) and then goes on from
 * now, {@code FIRE_NONE} none and goes on from now; no tick is handled before its instant.
 */
@Tag("slow")
class MisfireTest {

    record Tick(String schedule, long instant, long startedAt) {
    }

    static class Ticks {

        final List<Tick> handled = new CopyOnWriteArrayList<>();

        @DelayedHandler(queue = "downtime", concurrency = "4")
        void handle(DelayedJob<Map<String, Object>> tick) {
            handled.add(new Tick(tick.id().substring(0, tick.id().indexOf('@')), tick.dueAt().toEpochMilli(),
                    System.currentTimeMillis()));
        }

        List<Long> instants(String schedule) {
            return handled.stream().filter(t -> t.schedule().equals(schedule)).map(Tick::instant).sorted().toList();
        }
    }

    @Test
    void afterDowntimeFireAllMakesEveryMissedTickFireOneTheFirstAndFireNoneNone() {
        try (ConfigurableApplicationContext app = TestApps.run(TestRedis.uniquePrefix(), List.of(Ticks.class))) {
            Ticks ticks = app.getBean(Ticks.class);
            ScheduleStore store = app.getBean(ScheduleStore.class);
            long now = System.currentTimeMillis();
            long missedFrom = now - 10_500;
            for (String policy : List.of("FIRE_ALL", "FIRE_ONE", "FIRE_NONE")) {
                store.declare(QueueName.of("downtime").whole(), policy, "r:1000;m:" + policy, "{}", missedFrom, false);
            }
            // a schedule created here makes this instance's timer read the queue at once
            app.getBean(DelaySchedules.class).create("downtime", "hourly",
                    ScheduleSpec.fixedRate(Duration.ofHours(1), Misfire.FIRE_ONE), Map.of());

            List<Long> missed = LongStream.rangeClosed(0, 10).mapToObj(k -> missedFrom + k * 1000).toList();
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                assertThat(ticks.instants("FIRE_ALL")).containsAll(missed);
                assertThat(ticks.instants("FIRE_ONE")).anyMatch(t -> t > now);
                assertThat(ticks.instants("FIRE_NONE")).anyMatch(t -> t > now);
            });
            assertThat(ticks.instants("FIRE_ONE")).filteredOn(t -> t < now).as("the first missed tick only")
                    .containsExactly(missedFrom);
            assertThat(ticks.instants("FIRE_NONE")).filteredOn(t -> t < now).as("no missed tick").isEmpty();
            assertThat(ticks.handled).allSatisfy(t -> assertThat(t.startedAt()).as("started at or after its instant")
                    .isGreaterThanOrEqualTo(t.instant()));
            assertThat(ticks.handled.stream().map(t -> t.schedule() + "@" + t.instant()).distinct().count())
                    .as("each tick handled once").isEqualTo(ticks.handled.size());
        }
    }
}
