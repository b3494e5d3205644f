package dev.delayjobs.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.schedule.DelaySchedules.ScheduleInfo;
import dev.delayjobs.test.Recorder;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/** Schedules created at run time with payloads, on real Redis through a whole application context. */
@Tag("slow")
class DelaySchedulesTest {

    record Customer(int id) {
    }

    static class Reports {

        final Recorder recorder = new Recorder();

        @DelayedHandler(queue = "per-customer", concurrency = "4")
        void report(DelayedJob<Customer> job) {
            recorder.record(job.id(), job.dueAt(), job.attempt(), job.payload());
        }
    }

    static final ScheduleSpec EVERY_SECOND = ScheduleSpec.fixedRate(Duration.ofSeconds(1), Misfire.FIRE_ONE);

    @Test
    void createdSchedulesTickWithTheirPayloadsAndArePausedResumedListedAndRemoved() {
        try (ConfigurableApplicationContext app = TestApps.run(TestRedis.uniquePrefix(), List.of(Reports.class))) {
            DelaySchedules schedules = app.getBean(DelaySchedules.class);
            Recorder recorder = app.getBean(Reports.class).recorder;
            assertThat(schedules.create("per-customer", "c-42", EVERY_SECOND, new Customer(42))).isTrue();
            assertThat(schedules.create("per-customer", "c-7", EVERY_SECOND, new Customer(7))).isTrue();
            assertThat(schedules.create("per-customer", "c-7", EVERY_SECOND, new Customer(8))).as("exists").isFalse();
            assertThat(schedules.update("per-customer", "c-9", EVERY_SECOND, new Customer(9))).as("absent").isFalse();

            await().atMost(Duration.ofSeconds(10)).until(() -> ticksOf(recorder, "c-42") >= 2 && ticksOf(recorder, "c-7") >= 2);
            assertThat(recorder.deliveries()).allSatisfy(d -> {
                assertThat(d.handledAt()).isAfterOrEqualTo(d.dueAt());
                assertThat(d.id()).isEqualTo("c-" + ((Customer) d.payload()).id() + "@" + d.dueAt().toEpochMilli());
            });
            assertThat(recorder.counts()).allSatisfy((id, count) -> assertThat(count).as(id).isEqualTo(1));

            assertThat(schedules.pause("per-customer", "c-42")).isTrue();
            assertThat(schedules.pause("per-customer", "c-42")).as("paused already").isFalse();
            Map<String, ScheduleInfo> listed = schedules.list("per-customer", "0", 100).schedules().stream()
                    .collect(Collectors.toMap(ScheduleInfo::name, s -> s));
            assertThat(listed).containsOnlyKeys("c-42", "c-7");
            assertThat(listed.get("c-42").paused()).isTrue();
            assertThat(listed.get("c-42").nextTick()).isNull();
            assertThat(listed.get("c-7").paused()).isFalse();
            assertThat(listed.get("c-7").spec()).isEqualTo(EVERY_SECOND);
            assertThat(listed.get("c-7").payloadJson()).isEqualTo("{\"id\":7}");

            int beforeResume = ticksOf(recorder, "c-42");
            assertThat(schedules.resume("per-customer", "c-42")).isTrue();
            assertThat(schedules.resume("per-customer", "c-42")).as("ticking already").isFalse();
            await().atMost(Duration.ofSeconds(10)).until(() -> ticksOf(recorder, "c-42") >= beforeResume + 2);

            assertThat(schedules.update("per-customer", "c-7", EVERY_SECOND, new Customer(70))).isTrue();
            await().atMost(Duration.ofSeconds(10)).until(() -> recorder.deliveries().stream()
                    .anyMatch(d -> d.payload().equals(new Customer(70))));

            assertThat(schedules.remove("per-customer", "c-42")).isTrue();
            assertThat(schedules.remove("per-customer", "c-7")).isTrue();
            assertThat(schedules.remove("per-customer", "c-7")).isFalse();
            assertThat(schedules.list("per-customer", "0", 100).schedules()).isEmpty();
        }
    }

    @Test
    void badInputIsNamed() {
        try (ConfigurableApplicationContext app = TestApps.run(TestRedis.uniquePrefix(), List.of(Reports.class))) {
            DelaySchedules schedules = app.getBean(DelaySchedules.class);
            assertThatThrownBy(() -> schedules.create("per-customer", "a b", EVERY_SECOND, new Customer(1)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("schedule name 'a b'");
            assertThatThrownBy(() -> schedules.create("per customer", "a", EVERY_SECOND, new Customer(1)))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> schedules.list("per-customer", "0", 0)).hasMessageContaining("count must be 1 to 1000");
        }
    }

    private static int ticksOf(Recorder recorder, String schedule) {
        return (int) recorder.deliveries().stream().filter(d -> d.id().startsWith(schedule + "@")).count();
    }
}
