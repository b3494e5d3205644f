package dev.delayjobs.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.Recurring;
import dev.delayjobs.queue.QueueName;
import dev.delayjobs.redis.ScheduleStore;
import dev.delayjobs.test.Recorder;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/**
 * The schedule timer does not read, every period, the schedules of a queue that has none; a
 * schedule another instance creates there is still ticked, within the timer's idle recheck.
 */
@Tag("slow")
class ScheduleTimerIdleTest {

    static class Handlers {

        final Recorder recorder = new Recorder();

        @DelayedHandler(queue = "ticking")
        @Recurring(name = "often", fixedRate = "500ms")
        void ticking(DelayedJob<Map<String, Object>> tick) {
            recorder.record(tick.id(), tick.dueAt(), tick.attempt(), tick.payload());
        }

        @DelayedHandler(queue = "plain")
        void plain(DelayedJob<Map<String, Object>> job) {
            recorder.record(job.id(), job.dueAt(), job.attempt(), job.payload());
        }
    }

    @Test
    void aQueueWithoutSchedulesIsReadOncePerRecheckAndAScheduleCreatedElsewhereIsStillTicked() {
        try (ConfigurableApplicationContext app = TestApps.run(TestRedis.uniquePrefix(), List.of(Handlers.class))) {
            ScheduleTimer timer = app.getBean(ScheduleTimer.class);
            Recorder recorder = app.getBean(Handlers.class).recorder;
            QueueName plain = QueueName.of("plain");
    
            // four ticks of 500 ms handled: several periods of the timer, yet the queue without schedules read once
            await().atMost(Duration.ofSeconds(20)).until(() -> recorder.deliveries().stream()
                    .filter(d -> d.id().startsWith("often@")).count() >= 4);
            assertThat(timer.dueReads(plain)).isEqualTo(1);

            // another instance creates a schedule there (straight into Redis: this timer is not told)
            Instant created = Instant.now();
            ScheduleSpec everySecond = ScheduleSpec.fixedRate(Duration.ofSeconds(1), Misfire.FIRE_ALL);
            app.getBean(ScheduleStore.class).declare(timer.home(plain), "elsewhere", everySecond.text(), "{}",
                    everySecond.next(created).toEpochMilli(), false);
            await().atMost(QueueTicks.IDLE_RECHECK.plusSeconds(10)).until(() -> recorder.deliveries().stream()
                    .anyMatch(d -> d.id().startsWith("elsewhere@")));
            // found, it is read every period from then on
            long found = timer.dueReads(plain);
            await().atMost(Duration.ofSeconds(20)).until(() -> timer.dueReads(plain) >= found + 4);
        }
    }
}
