package dev.delayjobs.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.Recurring;
import dev.delayjobs.test.Recorder;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/** Declared schedules on real Redis with whole application contexts. */
@Tag("slow")
class RecurringTest {

    static class Ticks {

        final Recorder recorder = new Recorder();

        @DelayedHandler(queue = "ticks", concurrency = "2")
        @Recurring(name = "every-second", fixedRate = "${test.rate:1s}")
        void tick(DelayedJob<Map<String, Object>> job) {
            recorder.record(job.id(), job.dueAt(), job.attempt(), job.payload());
        }
    }

    @Test
    void threeInstancesDeclaringOneScheduleHandleEachTickOnceNoneEarlyNoneSkipped() {
        String prefix = TestRedis.uniquePrefix();
        try (ConfigurableApplicationContext a = TestApps.run(prefix, List.of(Ticks.class));
                ConfigurableApplicationContext b = TestApps.run(prefix, List.of(Ticks.class));
                ConfigurableApplicationContext c = TestApps.run(prefix, List.of(Ticks.class))) {
            List<Recorder> recorders = List.of(a.getBean(Ticks.class).recorder, b.getBean(Ticks.class).recorder,
                    c.getBean(Ticks.class).recorder);

            await().atMost(Duration.ofSeconds(20)).until(() -> union(recorders).size() >= 5);

            Map<String, Integer> union = union(recorders);
            assertThat(union).allSatisfy((id, count) -> assertThat(count).as(id).isEqualTo(1));
            List<Recorder.Delivery> all = new ArrayList<>();
            recorders.forEach(r -> all.addAll(r.deliveries()));
            assertThat(all).allSatisfy(d -> {
                assertThat(d.handledAt()).as(d.id()).isAfterOrEqualTo(d.dueAt());
                assertThat(d.id()).isEqualTo("every-second@" + d.dueAt().toEpochMilli());
                assertThat(d.payload()).isEqualTo(Map.of());
            });
            List<Long> ticks = all.stream().map(d -> d.dueAt().toEpochMilli()).sorted().toList();
            for (int i = 1; i < ticks.size(); i++) {
                assertThat(ticks.get(i) - ticks.get(i - 1)).as("ticks one rate apart, none skipped").isEqualTo(1000);
            }
        }
    }

    @Test
    void anEditedScheduleReplacesItsPendingTick() {
        String prefix = TestRedis.uniquePrefix();
        try (ConfigurableApplicationContext hourly = TestApps.run(prefix, List.of(Ticks.class), "test.rate=1h")) {
            assertThat(hourly.getBean(Ticks.class).recorder.total()).isZero();
        }
        try (ConfigurableApplicationContext edited = TestApps.run(prefix, List.of(Ticks.class), "test.rate=1s")) {
            Recorder recorder = edited.getBean(Ticks.class).recorder;
            // the hourly schedule's pending tick is an hour away: a tick now comes from the edit
            await().atMost(Duration.ofSeconds(10)).until(() -> recorder.total() >= 2);
            List<Long> ticks = recorder.deliveries().stream().map(d -> d.dueAt().toEpochMilli()).sorted().toList();
            assertThat(ticks.get(1) - ticks.get(0)).isEqualTo(1000);
        }
    }

    private static Map<String, Integer> union(List<Recorder> recorders) {
        Map<String, Integer> union = new HashMap<>();
        recorders.forEach(r -> r.counts().forEach((id, count) -> union.merge(id, count, Integer::sum)));
        return union;
    }
}
