package dev.delayjobs.fault;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongUnaryOperator;
import java.util.function.Predicate;

import dev.delayjobs.fault.ConsumerMain.Work;
import dev.delayjobs.fault.HandledLog.Handled;
import dev.delayjobs.schedule.DelaySchedules;
import dev.delayjobs.schedule.DelaySchedules.ScheduleInfo;
import dev.delayjobs.schedule.Misfire;
import dev.delayjobs.schedule.ScheduleSpec;

/**
 * The soak's recurring schedules: a few dynamic schedules on the soak's queue (fixed rates of 1 s
 * and 700 ms, a cron every 2 s), created before the faults start and removed after they stop, so
 * that their ticks go through every fault with the other jobs. Their misfire policy is
 * {@code FIRE_ALL}: a tick missed while Redis was frozen or down is published late, not skipped.
 * The rules, checked from the handlers' own log: every tick of each schedule between its creation
 * and the end of the faults is handled (or dead), and nothing but its ticks (an instant of its
 * series, named by it). None early and none twice without a fault to explain it are checked by
 * the soak for every handled id, the ticks' among them.
 */
final class SoakSchedules {

    /**
     * A tick whose instant came just before the removal (its job due, not yet handled) runs after it; ticks published
     * ahead whose instant is still to come are taken back. A margin for the first.
     */
    private static final long AFTER_REMOVAL_MS = 3000;

    /**
     * One schedule: its name, the instant of its series after a given one (epoch ms), and when its
     * create call began and returned.
     */
    record Schedule(String name, ScheduleSpec spec, LongUnaryOperator nextAfter, long createdBefore, long createdAfter) {

        /** A fixed rate of {@code period} ms whose series goes through {@code anchor}. */
        static Schedule fixedRate(String name, ScheduleSpec spec, long anchor, long period, long createdBefore,
                long createdAfter) {
            return new Schedule(name, spec, t -> anchor + (Math.floorDiv(t - anchor, period) + 1) * period, createdBefore,
                    createdAfter);
        }

        boolean onSeries(long t) {
            return nextAfter.applyAsLong(t - 1) == t;
        }

        /** Its ticks after its create call returned, up to {@code end}: each one must run (the first tick is among them unless the call took a period). */
        List<Long> due(long end) {
            List<Long> due = new ArrayList<>();
            for (long t = nextAfter.applyAsLong(createdAfter); t <= end; t = nextAfter.applyAsLong(t)) {
                due.add(t);
            }
            return due;
        }
    }

    private final DelaySchedules schedules;
    private final List<Schedule> created = new ArrayList<>();
    private long end;
    private long removedAt;

    private SoakSchedules(DelaySchedules schedules) {
        this.schedules = schedules;
    }

    /** A checker of schedules created and ended at the given times, without Redis (the checker's own test). */
    static SoakSchedules checking(List<Schedule> schedules, long end, long removedAt) {
        SoakSchedules soak = new SoakSchedules(null);
        soak.created.addAll(schedules);
        soak.end = end;
        soak.removedAt = removedAt;
        return soak;
    }

    /** Creates the schedules (before any fault). */
    static SoakSchedules create(DelaySchedules schedules) {
        SoakSchedules soak = new SoakSchedules(schedules);
        // the first call of a fresh client is slow (connections, script loads): not one that computes a first tick
        schedules.list(FaultSoak.QUEUE, "0", 1);
        soak.rate("tick-1s", 1000);
        soak.rate("tick-700ms", 700);
        ScheduleSpec cron = ScheduleSpec.cron("*/2 * * * * *", ZoneOffset.UTC, Misfire.FIRE_ALL);
        long before = System.currentTimeMillis();
        schedules.create(FaultSoak.QUEUE, "tick-cron-2s", cron, new Work(-1, 20, 20));
        soak.created.add(new Schedule("tick-cron-2s", cron, t -> cron.next(Instant.ofEpochMilli(t)).toEpochMilli(), before,
                System.currentTimeMillis()));
        return soak;
    }

    private void rate(String name, long period) {
        ScheduleSpec spec = ScheduleSpec.fixedRate(Duration.ofMillis(period), Misfire.FIRE_ALL);
        long before = System.currentTimeMillis();
        schedules.create(FaultSoak.QUEUE, name, spec, new Work(-1, 20, 20));
        long after = System.currentTimeMillis();
        // a fixed rate's series is anchored where create computed its first tick: any tick read back is on it
        long anchor = schedules.list(FaultSoak.QUEUE, "0", 100).schedules().stream().filter(i -> i.name().equals(name))
                .findFirst().orElseThrow().nextTick().toEpochMilli();
        created.add(Schedule.fixedRate(name, spec, anchor, period, before, after));
    }

    /**
     * Ends the schedules once the faults have stopped: waits until every tick up to now is
     * published (after a fault the timers catch up on missed ticks), then removes them.
     */
    void end() throws InterruptedException {
        end = System.currentTimeMillis();
        long deadline = end + 60_000;
        while (System.currentTimeMillis() < deadline && !caughtUp()) {
            Thread.sleep(200);
        }
        for (Schedule s : created) {
            for (int attempt = 1;; attempt++) {
                try {
                    schedules.remove(FaultSoak.QUEUE, s.name());
                    break;
                }
                catch (RuntimeException ex) {
                    if (attempt == 10) {
                        throw ex;
                    }
                    Thread.sleep(500);
                }
            }
        }
        removedAt = System.currentTimeMillis();
    }

    private boolean caughtUp() {
        try {
            List<ScheduleInfo> listed = schedules.list(FaultSoak.QUEUE, "0", 100).schedules();
            return listed.size() == created.size()
                    && listed.stream().allMatch(i -> i.nextTick() != null && i.nextTick().toEpochMilli() > end);
        }
        catch (RuntimeException ex) {
            return false;
        }
    }

    /** The broken rules; {@code dead} tells a tick whose job went to the dead set. */
    List<String> check(List<Handled> handled, Predicate<String> dead) {
        List<String> violations = new ArrayList<>();
        for (Schedule s : created) {
            Map<Long, Handled> byTick = new HashMap<>();
            for (Handled h : handled) {
                if (!h.id().startsWith(s.name() + "@")) {
                    continue;
                }
                byTick.putIfAbsent(h.dueAt(), h);
                if (!h.id().equals(s.name() + "@" + h.dueAt())) {
                    violations.add("TICK-ID " + h.id() + ": due at " + h.dueAt() + ", another instant than its name says");
                }
                if (!s.onSeries(h.dueAt()) || h.dueAt() <= s.createdBefore() || h.dueAt() > removedAt + AFTER_REMOVAL_MS) {
                    violations.add("TICK-STRAY " + h.id() + ": not a tick of " + s.spec() + " between its creation at "
                            + s.createdBefore() + " and its removal at " + removedAt);
                }
            }
            for (long t : s.due(end)) {
                String id = s.name() + "@" + t;
                if (!byTick.containsKey(t) && !dead.test(id)) {
                    violations.add("TICK-MISSED " + id + ": a tick between the schedule's creation and the end of the"
                            + " faults, never handled, not dead");
                }
            }
        }
        return violations;
    }

    /** The figures: how many ticks were due, handled, handled more than once, and the latest start after a tick. */
    String figures(List<Handled> handled) {
        long due = created.stream().mapToLong(s -> s.due(end).size()).sum();
        List<Handled> ticks = handled.stream().filter(h -> created.stream().anyMatch(s -> h.id().startsWith(s.name() + "@"))).toList();
        Map<String, Integer> counts = HandledLog.counts(ticks);
        return "schedules=" + created.size() + " ticksDue=" + due + " ticksHandled=" + counts.size() + " tickRuns="
                + ticks.size() + " ticksTwice=" + counts.values().stream().filter(c -> c > 1).count()
                + " maxTickLatenessMs=" + ticks.stream().mapToLong(Handled::lateness).max().orElse(0);
    }
}
