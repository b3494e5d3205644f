package dev.delayjobs.schedule;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import dev.delayjobs.queue.Partition;
import dev.delayjobs.queue.QueueName;
import dev.delayjobs.redis.ScheduleStore;
import dev.delayjobs.redis.ScheduleStore.DueSchedule;
import dev.delayjobs.redis.ScheduleStore.Step;

/**
 * One round of ticks per queue, for the {@link ScheduleTimer}: reads up to {@link #MOST_PER_CALL}
 * schedules due within {@link #LOOKAHEAD} ({@link #BURST_LOOKAHEAD} while a burst comes), computes
 * each one's step ({@link TickPlan}) and applies them in one {@code tick.lua} call, up to
 * {@link #MOST_CALLS_PER_ROUND} calls. Owns what the rounds remember of each queue: whether it is
 * idle (no schedule to tick) or bursting, and how often it was read.
 */
final class QueueTicks {

    static final Duration LOOKAHEAD = Duration.ofSeconds(2);
    static final int MOST_PER_CALL = 100;
    /**
     * How long a queue found without a schedule to tick is not read: a schedule created (or resumed)
     * there by another instance is ticked by that one at once, and by this one within this time.
     */
    static final Duration IDLE_RECHECK = Duration.ofSeconds(10);
    /** Calls per queue and period, so that a backlog of missed ticks (FIRE_ALL) cannot hold the timer. */
    static final int MOST_CALLS_PER_ROUND = 10;
    /**
     * How far ahead the timer publishes while a burst comes: while more schedules of a queue have a
     * tick within this time than {@link #BURST_THRESHOLD}, its reads go this far (earliest first).
     * At 1,000 ticks a round (2,000/s), a burst of up to about 100,000 ticks on one instant is then
     * published before it, if the schedules stand a minute before it.
     */
    static final Duration BURST_LOOKAHEAD = Duration.ofSeconds(60);
    /**
     * What the timer publishes in half its {@link #LOOKAHEAD} (2 rounds of {@link #MOST_CALLS_PER_ROUND}
     * calls of {@link #MOST_PER_CALL}): up to this many ticks on one instant need no burst lookahead.
     */
    static final int BURST_THRESHOLD = 2 * MOST_CALLS_PER_ROUND * MOST_PER_CALL;
    /**
     * A burst lasts until this many schedules or fewer have a tick within {@link #BURST_LOOKAHEAD}:
     * half a round, published in the first round of the normal lookahead.
     */
    static final int BURST_END = MOST_CALLS_PER_ROUND * MOST_PER_CALL / 2;
    /** Most SKIP schedules read past per round (a due read's offset costs O(offset)). */
    private static final int MOST_PASSED_OVER = 1000;

    private final ScheduleStore store;
    private final ScheduleUpkeep upkeep;
    /** Due reads per queue, for tests. */
    private final Map<QueueName, LongAdder> reads = new ConcurrentHashMap<>();
    /** Queues found without a schedule to tick: when to read them again (System.nanoTime). */
    private final Map<QueueName, Long> idleUntil = new ConcurrentHashMap<>();
    /** Queues whose rounds publish up to {@link #BURST_LOOKAHEAD} ahead (a burst comes). */
    private final Set<QueueName> bursting = ConcurrentHashMap.newKeySet();

    QueueTicks(ScheduleStore store, ScheduleUpkeep upkeep) {
        this.store = store;
        this.upkeep = upkeep;
    }

    /** Publishes the due ticks of one queue (those within the lookahead); returns the number of jobs published. */
    int round(Partition queue) {
        return tick(queue, LOOKAHEAD.toMillis(), MOST_CALLS_PER_ROUND, false);
    }

    /** Publishes the ticks within {@code window} from now, each as its job due at its tick (see {@link ScheduleTimer#publishTicksWithin}). */
    long fastForward(Partition queue, Duration window) {
        return tick(queue, Math.max(window.toMillis(), LOOKAHEAD.toMillis()), 1000, true);
    }

    /** Whether {@code queue} was found without a schedule to tick less than {@link #IDLE_RECHECK} ago. */
    boolean idle(QueueName queue) {
        Long until = idleUntil.get(queue);
        return until != null && System.nanoTime() - until < 0;
    }

    /** Reads {@code queue} at the next round, idle or not. */
    void wake(QueueName queue) {
        idleUntil.remove(queue);
    }

    /** How many times {@code queue}'s due schedules were read. */
    long dueReads(QueueName queue) {
        LongAdder n = reads.get(queue);
        return n == null ? 0 : n.sum();
    }

    private int tick(Partition queue, long lookaheadMs, int mostCalls, boolean fastForward) {
        int published = 0;
        long lookahead = lookaheadMs;
        // SKIP schedules read with their tick still to come are left at the head of the due set: read past them
        int passedOver = 0;
        for (int call = 0; call < mostCalls; call++) {
            ScheduleStore.Due due = store.due(queue, lookahead, MOST_PER_CALL, BURST_LOOKAHEAD.toMillis(), passedOver);
            reads.computeIfAbsent(queue.queue(), q -> new LongAdder()).increment();
            boolean burstBegins = false;
            if (call == 0) {
                if (due.ticking() == 0) {
                    idleUntil.put(queue.queue(), System.nanoTime() + IDLE_RECHECK.toNanos());
                }
                else {
                    idleUntil.remove(queue.queue());
                }
                // more ticks to come within the burst lookahead than the timer publishes in half its lookahead
                if (!fastForward && burst(queue.queue(), due.soon()) && lookahead < BURST_LOOKAHEAD.toMillis()) {
                    lookahead = BURST_LOOKAHEAD.toMillis();
                    burstBegins = true;
                }
            }
            if (due.schedules().isEmpty()) {
                if (burstBegins) {
                    continue;
                }
                break;
            }
            Instant now = Instant.ofEpochMilli(due.now());
            List<Step> steps = new ArrayList<>();
            int parked = 0;
            int left = 0;
            for (DueSchedule s : due.schedules()) {
                ScheduleSpec spec;
                try {
                    spec = ScheduleSpec.parse(s.spec());
                }
                catch (IllegalArgumentException ex) {
                    // out of the ticks, so that it does not hold the head of the due read: the rest come next call
                    upkeep.park(queue.queue(), s, ex.getMessage());
                    parked++;
                    continue;
                }
                Step step = step(s, spec, now, fastForward);
                if (step != null) {
                    steps.add(step);
                }
                else {
                    left++;
                }
            }
            passedOver = Math.min(passedOver + left, MOST_PASSED_OVER);
            if (steps.isEmpty()) {
                if (parked > 0 || burstBegins || (left == MOST_PER_CALL && passedOver < MOST_PASSED_OVER)) {
                    continue;
                }
                break;
            }
            published += (int) store.tick(queue, steps, !fastForward).stream()
                    .filter(ScheduleStore.Stepped.PUBLISHED::equals).count();
        }
        return published;
    }

    /** Whether the timer publishes {@code queue}'s ticks up to {@link #BURST_LOOKAHEAD} ahead this round. */
    private boolean burst(QueueName queue, long soon) {
        if (soon > BURST_THRESHOLD) {
            bursting.add(queue);
            return true;
        }
        if (soon <= BURST_END) {
            bursting.remove(queue);
        }
        return bursting.contains(queue);
    }

    /**
     * The step of a due schedule; null for a tick of an {@link Overlap#SKIP} schedule that is not yet
     * due: whether the previous tick's job has ended is asked at the tick, not ahead of it. A fast
     * forward (a lookahead beyond the timer's) publishes every tick, as {@link Overlap#RUN} does.
     */
    private static Step step(DueSchedule s, ScheduleSpec spec, Instant now, boolean fastForward) {
        boolean skip = spec.overlap() == Overlap.SKIP && !fastForward;
        if (skip && s.tick() > now.toEpochMilli()) {
            return null;
        }
        TickPlan plan = TickPlan.of(spec, Instant.ofEpochMilli(s.tick()), now);
        return new Step(s.name(), s.spec(), s.tick(), plan.fire(), plan.fireAt().toEpochMilli(),
                plan.next() == null ? null : plan.next().toEpochMilli(), skip);
    }
}
