package dev.delayjobs.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static dev.delayjobs.test.TestPartitions.whole;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.JobInfo;
import dev.delayjobs.embeddedredis.RedisServerProcess;
import dev.delayjobs.fault.HandledLog.Handled;
import dev.delayjobs.queue.QueueName;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.redis.ScheduleStore;
import dev.delayjobs.schedule.Misfire;
import dev.delayjobs.schedule.ScheduleSpec;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/**
 * A recurring schedule through {@code kill -9} of the application that handles or publishes its
 * ticks. The schedule is stored by the test itself (a bare {@link ScheduleStore}), so that only the
 * consumer JVMs run a schedule timer: a tick is published by them or by nobody. Every tick between
 * the schedule's first and its removal is handled, none before its instant, and the only tick
 * handled twice is one the killed JVM held.
 */
@Tag("slow")
@Tag("fault")
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ScheduleKillTest {

    private static final String QUEUE = "ticks";
    private static final String NAME = "every-second";
    private static final long RATE_MS = 1000;
    private static final String[] SETTINGS = { "delay.heartbeat-interval=500ms", "delay.heartbeat-lease=2s",
        "delay.sweep-interval=250ms" };

    @Test
    void consumerKilledWhileHandlingATickHandsItToTheOtherAndSkipsNone() {
        String prefix = TestRedis.uniquePrefix();
        try (RedisServerProcess redis = RedisServerProcess.start();
                ConsumerProcess victim = ConsumerProcess.start("victim", redis, prefix, QUEUE, 4, SETTINGS);
                ConsumerProcess survivor = ConsumerProcess.start("survivor", redis, prefix, QUEUE, 4, SETTINGS);
                var app = TestApps.run("127.0.0.1", redis.port(), prefix, List.of())) {
            victim.awaitReady(Duration.ofSeconds(90));
            survivor.awaitReady(Duration.ofSeconds(90));
            DelayPublisher publisher = app.getBean(DelayPublisher.class);
            // each tick's first attempt works 1.5 s, longer than the rate: a consumer is always in
            // the middle of one; a tick handed back after a kill works 10 ms
            // stored as another instance would, which then left: the consumers find it within
            // QueueTicks.IDLE_RECHECK (10 s), when its first ticks may count as missed (5 s late);
            // FIRE_ALL makes those jobs too, so that every tick from the first is handled
            long first = declare(redis, prefix, ScheduleSpec.fixedRate(Duration.ofMillis(RATE_MS), Misfire.FIRE_ALL),
                    "{\"n\":0,\"firstWorkMs\":1500,\"laterWorkMs\":10}");
            List<Path> logs = List.of(victim.log(), survivor.log());

            // the victim has handled a tick and is in the middle of another
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
                    .until(() -> !HandledLog.read(List.of(victim.log())).isEmpty()
                            && !HeldJobs.read(redis, prefix, QUEUE, "victim", publisher, JobInfo::id).running().isEmpty());
            victim.kill();
            long killedAt = System.currentTimeMillis();
            HeldJobs heldAtKill = HeldJobs.read(redis, prefix, QUEUE, "victim", publisher, JobInfo::id);
            assertThat(heldAtKill.running()).as("ticks the victim was handling at the kill").isNotEmpty();

            // the survivor alone goes on for 6 ticks past the kill (its lease: 2 s), then the schedule ends
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).until(
                    () -> HandledLog.read(logs).stream().filter(h -> h.startedAt() > killedAt + 6 * RATE_MS).count() >= 1);
            Ended ended = remove(redis, prefix);
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(
                    () -> handledTicks(HandledLog.read(logs)).containsAll(ticks(first, ended.end())));
            await().atMost(Duration.ofSeconds(10)).until(() -> app.getBean(RedisJobStore.class)
                    .stats(whole(QUEUE)).running() == 0);

            List<Handled> handled = HandledLog.read(logs);
            assertOnGridNoneEarly(handled, first, ended.removedAt());
            Set<String> duplicated = HandledLog.duplicated(handled);
            assertThat(heldAtKill.all()).as("ticks handled twice were held by the victim at the kill").containsAll(duplicated);
            for (String id : heldAtKill.running()) {
                assertThat(handled).filteredOn(h -> h.id().equals(id) && h.pid() == survivor.pid())
                        .as("tick %s, running in the victim at the kill, handled again by the survivor", id)
                        .singleElement().satisfies(h -> {
                            assertThat(h.attempt()).isEqualTo(2);
                            assertThat(h.startedAt()).isGreaterThan(killedAt);
                        });
            }
            FaultReport.record("kill -9 of a consumer in the middle of a schedule's tick",
                    "ticks=" + ticks(first, ended.end()).size() + " handled=" + HandledLog.counts(handled).size()
                            + " runs=" + handled.size() + " runningInVictimAtKill=" + heldAtKill.running()
                            + " duplicated=" + duplicated + " maxLatenessMs="
                            + handled.stream().mapToLong(Handled::lateness).max().orElseThrow());
        }
    }

    /**
     * The only instance that ticks dies after its timer read the due schedule and before its
     * {@code tick.lua} call left ({@link TickHalt}): Redis still holds the tick and no job; the next
     * instance publishes that very tick, and with {@code FIRE_ALL} each one missed while no instance ran.
     */
    @Test
    void timerKilledBetweenItsReadAndTickLeavesTheTickToTheNextInstance() {
        String prefix = TestRedis.uniquePrefix();
        try (RedisServerProcess redis = RedisServerProcess.start();
                ConsumerProcess victim = ConsumerProcess.start("victim", redis, prefix, QUEUE, 4, "fault.halt-before-tick=true")) {
            victim.awaitReady(Duration.ofSeconds(90));
            long first = declare(redis, prefix, ScheduleSpec.fixedRate(Duration.ofMillis(RATE_MS), Misfire.FIRE_ALL),
                    "{\"n\":0,\"firstWorkMs\":10,\"laterWorkMs\":10}");
            assertThat(victim.waitForExit(Duration.ofSeconds(20))).as("victim halted at its first tick.lua").isTrue();
            assertThat(victim.output()).contains("fault: halting before tick.lua");
            String key = prefix + ":{" + QUEUE + "}:";
            assertThat(RedisCli.call(redis.port(), "ZSCORE", key + "schedule-ticks", NAME)).as("the tick still stored")
                    .isEqualTo(Long.toString(first));
            assertThat(RedisCli.callLong(redis.port(), "HLEN", key + "jobs")).as("no job published").isZero();

            try (ConsumerProcess next = ConsumerProcess.start("next", redis, prefix, QUEUE, 4)) {
                next.awaitReady(Duration.ofSeconds(90));
                long startedAt = System.currentTimeMillis();
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).until(
                        () -> handledTicks(HandledLog.read(List.of(next.log()))).containsAll(ticks(first, startedAt + 2 * RATE_MS)));
                Ended ended = remove(redis, prefix);
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(
                        () -> handledTicks(HandledLog.read(List.of(next.log()))).containsAll(ticks(first, ended.end())));
                List<Handled> handled = HandledLog.read(List.of(next.log()));
                assertOnGridNoneEarly(handled, first, ended.removedAt());
                assertThat(HandledLog.duplicated(handled)).as("handled twice").isEmpty();
                FaultReport.record("kill -9 of the only schedule timer between its read and tick.lua",
                        "ticks=" + ticks(first, ended.end()).size() + " handled=" + handled.size()
                                + " missedWhileNoInstanceRan=" + ticks(first, startedAt).size()
                                + " firstTickLatenessMs=" + handled.stream().filter(h -> h.dueAt() == first)
                                        .mapToLong(Handled::lateness).min().orElseThrow());
            }
        }
    }

    /** Every handled tick is one of the schedule's (an instant of the series, named by it), none before its instant. */
    private static void assertOnGridNoneEarly(List<Handled> handled, long first, long removedAt) {
        assertThat(handled).isNotEmpty().allSatisfy(h -> {
            assertThat(h.id()).isEqualTo(NAME + "@" + h.dueAt());
            assertThat((h.dueAt() - first) % RATE_MS).as(h.id() + " on the rate's grid").isZero();
            assertThat(h.dueAt()).as(h.id()).isBetween(first, removedAt + 3000);
            assertThat(h.startedAt()).as(h.id() + " started no earlier than its tick").isGreaterThanOrEqualTo(h.dueAt());
        });
    }

    /** Stores the schedule, its first tick 3 s from now; returns that tick (epoch ms). */
    private static long declare(RedisServerProcess redis, String prefix, ScheduleSpec spec, String payloadJson) {
        RedissonClient redisson = client(redis);
        try {
            long first = Instant.now().plusSeconds(3).toEpochMilli();
            new ScheduleStore(redisson, prefix).declare(QueueName.of(QUEUE).whole(), NAME, spec.text(), payloadJson, first, false);
            return first;
        }
        finally {
            redisson.shutdown();
        }
    }

    /**
     * Ends the schedule: once every tick up to now is published (its stored next tick is later),
     * removes it. Each tick up to {@code end} must be handled; none after {@code removedAt} plus the
     * lookahead (2 s) can be.
     */
    private static Ended remove(RedisServerProcess redis, String prefix) {
        long end = System.currentTimeMillis();
        String ticks = prefix + ":{" + QUEUE + "}:schedule-ticks";
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                .until(() -> Long.parseLong((String) RedisCli.call(redis.port(), "ZSCORE", ticks, NAME)) > end);
        RedissonClient redisson = client(redis);
        try {
            assertThat(new ScheduleStore(redisson, prefix).remove(QueueName.of(QUEUE).whole(), List.of(NAME))).isOne();
            return new Ended(end, System.currentTimeMillis());
        }
        finally {
            redisson.shutdown();
        }
    }

    /** When the test ended the schedule (epoch ms) and when its removal returned. */
    private record Ended(long end, long removedAt) {
    }

    private static RedissonClient client(RedisServerProcess redis) {
        Config config = new Config();
        config.useSingleServer().setAddress(redis.url());
        return Redisson.create(config);
    }

    /** The ticks of the series from {@code first} up to {@code until}. */
    private static Set<Long> ticks(long first, long until) {
        Set<Long> ticks = new TreeSet<>();
        for (long t = first; t <= until; t += RATE_MS) {
            ticks.add(t);
        }
        return ticks;
    }

    private static Set<Long> handledTicks(List<Handled> handled) {
        return handled.stream().map(Handled::dueAt).collect(Collectors.toSet());
    }
}
