package dev.delayjobs.schedule;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.SmartLifecycle;

import dev.delayjobs.partition.QueueLayouts;
import dev.delayjobs.queue.Partition;
import dev.delayjobs.queue.QueueName;
import dev.delayjobs.threads.WorkerThreads;
import dev.delayjobs.redis.ScheduleStore;
import dev.delayjobs.redis.ScheduleStore.DueSchedule;
import dev.delayjobs.redis.ScheduleStore.Step;

/**
 * Turns the due ticks of the schedules of the queues this instance knows into jobs: every
 * {@link #PERIOD}, per queue, reads up to {@link #MOST_PER_CALL} schedules due within
 * {@link #LOOKAHEAD} ({@link #BURST_LOOKAHEAD} while a burst comes), computes each one's step
 * ({@link TickPlan}) and applies them in one {@code tick.lua} call. Every instance runs it; the
 * compare-and-set in the script makes one job per tick. Declares the application's {@code @Recurring} schedules when it starts.
 */
public final class ScheduleTimer implements SmartLifecycle {

    private static final Log log = LogFactory.getLog(ScheduleTimer.class);

    static final Duration PERIOD = Duration.ofMillis(500);
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
    private final Supplier<List<DeclaredSchedule>> declared;
    private final Supplier<? extends Collection<String>> consumed;
    private final QueueLayouts layouts;
    private final WorkerThreads threads;
    private final Set<QueueName> queues = ConcurrentHashMap.newKeySet();
    private final ScheduleUpkeep upkeep;
    /** Due reads per queue, for tests. */
    private final Map<QueueName, LongAdder> reads = new ConcurrentHashMap<>();
    /** Queues found without a schedule to tick: when to read them again (System.nanoTime). */
    private final Map<QueueName, Long> idleUntil = new ConcurrentHashMap<>();
    /** Queues whose timer publishes up to {@link #BURST_LOOKAHEAD} ahead (a burst comes). */
    private final Set<QueueName> bursting = ConcurrentHashMap.newKeySet();
    private volatile Thread thread;

    /**
     * @param declared the application's {@code @Recurring} schedules, declared when the timer starts
     * @param consumed the queues this instance consumes, whose schedules it ticks too
     * @param threads makes its thread, as every thread of the starter
     */
    public ScheduleTimer(ScheduleStore store, RecurringAnnotationBeanPostProcessor declared,
            Supplier<? extends Collection<String>> consumed, QueueLayouts layouts, WorkerThreads threads) {
        this.store = store;
        this.threads = threads;
        this.declared = declared::declared;
        this.consumed = consumed;
        this.layouts = layouts;
        this.upkeep = new ScheduleUpkeep(store, this::home);
    }

    /** The partition whose keys hold the schedules of {@code queue} (and their ticks' jobs): its first. */
    Partition home(QueueName queue) {
        return layouts.layout(queue).schedules();
    }

    /** Ticks the schedules of {@code queue} from now on (the queues of declared schedules are known already). */
    void watch(QueueName queue) {
        queues.add(queue);
        idleUntil.remove(queue);
    }

    @Override
    public void start() {
        consumed.get().stream().map(QueueName::of).forEach(queues::add);
        for (DeclaredSchedule d : declared.get()) {
            Instant first = d.spec().next(Instant.now());
            ScheduleStore.Declared outcome = store.declare(home(d.queue()), d.name(), d.spec().text(), d.payload(),
                    first == null ? Long.MAX_VALUE : first.toEpochMilli(), false, ScheduleStore.DeclareMode.PUT, true);
            if (outcome == ScheduleStore.Declared.REPLACED) {
                log.info("Schedule '" + d.name() + "' of queue '" + d.queue() + "' changed to " + d.spec()
                        + " (" + d.where() + "): its pending tick is replaced");
            }
            queues.add(d.queue());
        }
        Thread t = threads.service("delay-schedules", this::run);
        t.setDaemon(true);
        thread = t;
        t.start();
    }

    @Override
    public void stop() {
        Thread t = thread;
        thread = null;
        if (t != null) {
            t.interrupt();
            try {
                t.join(5_000);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public boolean isRunning() {
        return thread != null;
    }

    private void run() {
        long upkeepAt = 0;
        while (thread == Thread.currentThread()) {
            if (System.nanoTime() - upkeepAt >= 0) {
                upkeep();
                upkeepAt = System.nanoTime() + ScheduleUpkeep.PERIOD.toNanos();
            }
            for (QueueName queue : queues) {
                Long idle = idleUntil.get(queue);
                if (idle != null && System.nanoTime() - idle < 0) {
                    continue;
                }
                try {
                    tick(home(queue));
                }
                catch (RuntimeException ex) {
                    log.warn("Could not tick the schedules of queue '" + queue + "' (tried again in " + PERIOD.toMillis()
                            + " ms): " + ex.getMessage());
                }
            }
            try {
                Thread.sleep(PERIOD.toMillis());
            }
            catch (InterruptedException ex) {
                return;
            }
        }
    }

    /**
     * The slower round ({@link ScheduleUpkeep}) on every queue: declarations kept fresh, undeclared
     * schedules reported, parked ones looked at. Returns the schedules reported undeclared, by queue.
     */
    Map<QueueName, Set<String>> upkeep() {
        Map<QueueName, Set<String>> undeclared = new HashMap<>();
        List<DeclaredSchedule> mine = declared.get();
        for (QueueName queue : queues) {
            List<String> names = mine.stream().filter(d -> d.queue().equals(queue)).map(DeclaredSchedule::name).toList();
            try {
                undeclared.put(queue, upkeep.round(queue, names));
            }
            catch (RuntimeException ex) {
                log.warn("Could not look after the schedules of queue '" + queue + "' (tried again in "
                        + ScheduleUpkeep.PERIOD.toSeconds() + " s): " + ex.getMessage());
            }
        }
        return undeclared;
    }

    /** How many times this timer read the due schedules of {@code queue}. */
    long dueReads(QueueName queue) {
        LongAdder n = reads.get(queue);
        return n == null ? 0 : n.sum();
    }

    /** Publishes the due ticks of one queue (those within the lookahead); returns the number of jobs published. */
    int tick(Partition queue) {
        return tick(queue, LOOKAHEAD.toMillis(), MOST_CALLS_PER_ROUND, false);
    }

    /**
     * For tests ({@code DelayQueueTester.fastForward}): publishes the ticks of {@code queue}'s
     * schedules that fall within {@code window} from now, each as its job due at its tick, and moves
     * the schedules past them, as if that much time had passed. At most 100,000 ticks per call.
     */
    public long publishTicksWithin(String queue, Duration window) {
        return tick(home(QueueName.of(queue)), Math.max(window.toMillis(), LOOKAHEAD.toMillis()), 1000, true);
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
