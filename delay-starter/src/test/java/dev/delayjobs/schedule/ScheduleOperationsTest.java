package dev.delayjobs.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.Recurring;
import dev.delayjobs.queue.QueueName;
import dev.delayjobs.redis.ScheduleStore;
import dev.delayjobs.schedule.DelaySchedules.ScheduleInfo;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * What operators rely on for schedules, on real Redis through whole applications: the overlap
 * policy, the last outcome and the tick counters, and unreadable specs that do not hold the rest back.
 */
@Tag("slow")
class ScheduleOperationsTest {

    static class Sweeper {

        final CountDownLatch release = new CountDownLatch(1);
        final List<String> started = new CopyOnWriteArrayList<>();
        final AtomicInteger running = new AtomicInteger();
        final AtomicInteger most = new AtomicInteger();

        @DelayedHandler(queue = "sweeps", concurrency = "4")
        @Recurring(name = "sweep", fixedRate = "300ms", overlap = "SKIP")
        void sweep(DelayedJob<Map<String, Object>> tick) throws InterruptedException {
            started.add(tick.id());
            most.accumulateAndGet(running.incrementAndGet(), Math::max);
            try {
                release.await(60, TimeUnit.SECONDS);
            }
            finally {
                running.decrementAndGet();
            }
        }
    }

    static class Failing {

        @DelayedHandler(queue = "failing", maxAttempts = "2", backoffInitial = "100ms")
        void fail(DelayedJob<Map<String, Object>> tick) {
            throw new IllegalStateException("always");
        }
    }

    static class Plain {

        final List<String> handled = new CopyOnWriteArrayList<>();

        @DelayedHandler(queue = "parking")
        void handle(DelayedJob<Map<String, Object>> tick) {
            handled.add(tick.id());
        }
    }

    @Test
    void aSkipScheduleMakesNoJobWhileItsPreviousTickRunsAndRecordsTheSkippedTicks() {
        try (ConfigurableApplicationContext app = TestApps.runWeb(TestRedis.uniquePrefix(), List.of(Sweeper.class))) {
            Sweeper sweeper = app.getBean(Sweeper.class);
            DelaySchedules schedules = app.getBean(DelaySchedules.class);
            MeterRegistry registry = app.getBean(MeterRegistry.class);

            await().atMost(Duration.ofSeconds(10)).until(() -> ticks(registry, "sweeps", "skipped") >= 3);
            assertThat(sweeper.started).as("one tick's job runs; the ticks meanwhile are skipped").hasSize(1);
            assertThat(info(schedules, "sweeps", "sweep").lastOutcome()).isNotNull()
                    .satisfies(o -> assertThat(o.outcome()).isEqualTo("skipped"));
            assertThat(info(schedules, "sweeps", "sweep").spec().overlap()).isEqualTo(Overlap.SKIP);

            sweeper.release.countDown();
            await().atMost(Duration.ofSeconds(10)).until(() -> sweeper.started.size() >= 3
                    && ticks(registry, "sweeps", "handled") >= 3);
            assertThat(sweeper.most.get()).as("never two ticks at once").isEqualTo(1);
            assertThat(info(schedules, "sweeps", "sweep").lastOutcome().outcome()).isIn("handled", "skipped");
        }
    }

    @Test
    void failedTicksAreRecordedAsRetryingThenDeadAndCounted() {
        try (ConfigurableApplicationContext app = TestApps.runWeb(TestRedis.uniquePrefix(), List.of(Failing.class))) {
            DelaySchedules schedules = app.getBean(DelaySchedules.class);
            MeterRegistry registry = app.getBean(MeterRegistry.class);
            schedules.create("failing", "hourly", ScheduleSpec.fixedRate(Duration.ofHours(1), Misfire.FIRE_ONE), Map.of());
            // the first tick is an hour away: make it due now, as a gap would (FIRE_ONE: one job at once)
            ScheduleStore store = app.getBean(ScheduleStore.class);
            long now = System.currentTimeMillis();
            store.declare(QueueName.of("failing").whole(), "hourly", "r:3600000;m:FIRE_ONE", "{\"a\":1}", now, false);

            await().atMost(Duration.ofSeconds(10)).until(() -> {
                DelaySchedules.LastOutcome o = info(schedules, "failing", "hourly").lastOutcome();
                return o != null && o.outcome().equals("dead");
            });
            assertThat(info(schedules, "failing", "hourly").lastOutcome().tick().toEpochMilli()).isEqualTo(now);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                assertThat(ticks(registry, "failing", "retrying")).isEqualTo(1);
                assertThat(ticks(registry, "failing", "dead")).isEqualTo(1);
                assertThat(ticks(registry, "failing", "handled")).isZero();
            });
        }
    }

    @Test
    void unreadableSpecsAreParkedAndDoNotHoldBackTheSchedulesBehindThem() {
        try (ConfigurableApplicationContext app = TestApps.run(TestRedis.uniquePrefix(), List.of(Plain.class))) {
            ScheduleStore store = app.getBean(ScheduleStore.class);
            long past = System.currentTimeMillis() - 60_000;
            for (int i = 0; i < 250; i++) {
                // as a newer release might write them: due long ago, so they come first
                store.declare(QueueName.of("parking").whole(), "future-" + i, "z:" + i + ";m:FIRE_ONE", "{}", past + i, false);
            }
            DelaySchedules schedules = app.getBean(DelaySchedules.class);
            schedules.create("parking", "readable", ScheduleSpec.fixedRate(Duration.ofSeconds(1), Misfire.FIRE_ONE), Map.of());

            await().atMost(Duration.ofSeconds(10)).until(() -> app.getBean(Plain.class).handled.size() >= 2);
            ScheduleInfo parked = info(schedules, "parking", "future-0");
            assertThat(parked.spec()).as("unreadable here").isNull();
            assertThat(parked.nextTick()).isNull();
            assertThat(parked.paused()).as("parked, not paused").isFalse();

            // a release that reads the spec puts it back: the same spec written readable (here, by hand)
            store.declare(QueueName.of("parking").whole(), "future-1", "r:1000;m:FIRE_ONE", "{}", System.currentTimeMillis(), false);
            await().atMost(Duration.ofSeconds(10)).until(() -> app.getBean(Plain.class).handled.stream()
                    .anyMatch(id -> id.startsWith("future-1@")));
        }
    }

    static ScheduleInfo info(DelaySchedules schedules, String queue, String name) {
        String cursor = "0";
        do {
            DelaySchedules.Page page = schedules.list(queue, cursor, 100);
            Optional<ScheduleInfo> found = page.schedules().stream().filter(s -> s.name().equals(name)).findFirst();
            if (found.isPresent()) {
                return found.get();
            }
            cursor = page.cursor();
        }
        while (!cursor.equals("0"));
        throw new AssertionError("no schedule " + name + " in queue " + queue);
    }

    static double ticks(MeterRegistry registry, String queue, String outcome) {
        return registry.get("delay.schedule.ticks").tag("queue", queue).tag("outcome", outcome).functionCounter().count();
    }
}
