package dev.delayjobs.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.queue.QueueName;
import dev.delayjobs.redis.ScheduleStore;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/**
 * Many schedules on one instant (the "every Monday at 09:00 for each customer" case), on real Redis
 * through a whole application: the timer publishes them all ahead of the instant, each as a job due
 * at it, and a change of a schedule takes back its tick published ahead.
 */
@Tag("slow")
class ScheduleBurstTest {

    record Run(String id, Instant dueAt, Instant publishedAt, Instant startedAt, Map<String, Object> payload) {
    }

    static class Handlers {

        final List<Run> runs = new CopyOnWriteArrayList<>();

        @DelayedHandler(queue = "burst", concurrency = "8")
        void tick(DelayedJob<Map<String, Object>> tick) {
            runs.add(new Run(tick.id(), tick.dueAt(), tick.publishedAt(), Instant.now(), tick.payload()));
        }
    }

    /** More than the timer publishes within its 2 s lookahead at 1,000 ticks a round (5 rounds at most). */
    private static final int BURST = 6000;

    @Test
    void aBurstOfTicksOnOneInstantIsPublishedBeforeItAndEachTickHandledOnceNoneEarly() throws Exception {
        try (ConfigurableApplicationContext app = TestApps.run(TestRedis.uniquePrefix(), List.of(Handlers.class))) {
            DelaySchedules schedules = app.getBean(DelaySchedules.class);
            Handlers handlers = app.getBean(Handlers.class);
            Instant instant = Instant.ofEpochSecond(Instant.now().getEpochSecond() + 25);
            create(schedules, "customer-", BURST, daily(instant));

            await().atMost(Duration.ofSeconds(90)).until(() -> handlers.runs.size() >= BURST);
            assertThat(handlers.runs).hasSize(BURST);
            assertThat(handlers.runs.stream().map(Run::id).distinct()).hasSize(BURST);
            assertThat(handlers.runs.stream().filter(r -> !r.publishedAt().isBefore(instant)).map(Run::id).limit(5))
                    .as("published at or after the instant").isEmpty();
            assertThat(handlers.runs).allSatisfy(r -> {
                assertThat(r.id()).isEqualTo(r.id().substring(0, r.id().indexOf('@')) + "@" + instant.toEpochMilli());
                assertThat(r.dueAt()).isEqualTo(instant);
                assertThat(r.publishedAt()).as(r.id()).isBefore(instant);
                assertThat(r.startedAt()).as(r.id()).isAfterOrEqualTo(instant);
            });
        }
    }

    @Test
    void removePauseAndUpdateTakeBackTheirTicksPublishedAheadAndASkipTickWaitsForItsInstant() throws Exception {
        String prefix = TestRedis.uniquePrefix();
        try (ConfigurableApplicationContext app = TestApps.run(prefix, List.of(Handlers.class))) {
            DelaySchedules schedules = app.getBean(DelaySchedules.class);
            Handlers handlers = app.getBean(Handlers.class);
            Instant instant = Instant.ofEpochSecond(Instant.now().getEpochSecond() + 20);
            ScheduleSpec spec = daily(instant);
            // enough on the instant for the timer to publish them well ahead of it (those below first: earliest
            // first, then by name)
            int fillers = QueueTicks.BURST_THRESHOLD + 100;
            create(schedules, "filler-", fillers, spec);
            for (String name : List.of("a-removed", "a-paused", "a-new-payload", "a-new-spec", "a-kept")) {
                schedules.create("burst", name, spec, Map.of("v", 1));
            }
            ScheduleSpec skip = spec.withOverlap(Overlap.SKIP);
            schedules.create("burst", "a-skip", skip, Map.of("v", 1));

            // published ahead: each one's next tick is the next day's
            await().atMost(Duration.ofSeconds(15)).until(() -> List.of("a-removed", "a-paused", "a-new-payload", "a-new-spec", "a-kept")
                    .stream().allMatch(name -> nextTick(app, name).isAfter(instant)));
            assertThat(Instant.now()).as("published ahead, before the changes").isBefore(instant.minusSeconds(2));
            assertThat(nextTick(app, "a-skip")).as("a SKIP tick is not published ahead").isEqualTo(instant);

            assertThat(schedules.remove("burst", "a-removed")).isTrue();
            assertThat(schedules.pause("burst", "a-paused")).isTrue();
            assertThat(schedules.update("burst", "a-new-payload", spec, Map.of("v", 2))).isTrue();
            Instant later = instant.plusSeconds(2);
            assertThat(schedules.update("burst", "a-new-spec", daily(later), Map.of("v", 1))).isTrue();
            assertThat(Instant.now()).as("changed before the instant").isBefore(instant);

            await().atMost(Duration.ofSeconds(60)).until(() -> handlers.runs.size() >= fillers + 4);
            Thread.sleep(1000); // a tick taken back would have run with the others by now
            Map<String, List<Run>> byName = new ConcurrentHashMap<>();
            handlers.runs.forEach(r -> byName.computeIfAbsent(r.id().substring(0, r.id().indexOf('@')),
                    n -> new CopyOnWriteArrayList<>()).add(r));
            assertThat(byName.keySet()).doesNotContain("a-removed", "a-paused");
            assertThat(byName.get("a-new-payload")).singleElement().satisfies(r -> {
                assertThat(r.dueAt()).isEqualTo(instant);
                assertThat(r.payload()).containsEntry("v", 2);
            });
            assertThat(byName.get("a-new-spec")).singleElement().satisfies(r -> assertThat(r.dueAt()).isEqualTo(later));
            assertThat(byName.get("a-kept")).singleElement().satisfies(r -> assertThat(r.dueAt()).isEqualTo(instant));
            assertThat(byName.get("a-skip")).singleElement().satisfies(r -> {
                assertThat(r.dueAt()).isEqualTo(instant);
                assertThat(r.publishedAt()).as("a SKIP tick is published at its instant").isAfterOrEqualTo(instant);
            });
            assertThat(handlers.runs).hasSize(fillers + 4);
            assertThat(handlers.runs).allSatisfy(r -> assertThat(r.startedAt()).as(r.id()).isAfterOrEqualTo(r.dueAt()));

            // the index of ticks published ahead does not outlive their instant (the timer's due reads drop it)
            RedissonClient redis = app.getBean(RedissonClient.class);
            await().atMost(Duration.ofSeconds(60)).until(() -> redis.getKeys().countExists(prefix + ":{burst}:schedule-ahead",
                    prefix + ":{burst}:schedule-ahead-due") == 0);
        }
    }

    private static ScheduleSpec daily(Instant at) {
        ZonedDateTime t = at.atZone(ZoneOffset.UTC);
        return ScheduleSpec.cron(t.getSecond() + " " + t.getMinute() + " " + t.getHour() + " * * *", ZoneOffset.UTC,
                Misfire.FIRE_ONE);
    }

    private static Instant nextTick(ConfigurableApplicationContext app, String name) {
        ScheduleStore.StoredSchedule stored = app.getBean(ScheduleStore.class)
                .find(app.getBean(ScheduleTimer.class).home(QueueName.of("burst")), name);
        return stored.nextTick() == null ? Instant.MIN : Instant.ofEpochMilli(stored.nextTick());
    }

    private static void create(DelaySchedules schedules, String prefix, int n, ScheduleSpec spec) throws Exception {
        ExecutorService creators = Executors.newFixedThreadPool(4);
        try {
            List<? extends java.util.concurrent.Future<?>> done = IntStream.range(0, 4).mapToObj(t -> creators.submit(() -> {
                for (int i = t; i < n; i += 4) {
                    schedules.create("burst", prefix + i, spec, Map.of("customer", i));
                }
            })).toList();
            for (java.util.concurrent.Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        }
        finally {
            creators.shutdownNow();
        }
    }
}
