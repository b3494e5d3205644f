package dev.delayjobs.schedule;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.SmartLifecycle;

import dev.delayjobs.partition.QueueLayouts;
import dev.delayjobs.queue.Partition;
import dev.delayjobs.queue.QueueName;
import dev.delayjobs.threads.WorkerThreads;
import dev.delayjobs.redis.ScheduleStore;

/**
 * Turns the due ticks of the schedules of the queues this instance knows into jobs: every
 * {@link #PERIOD}, a round of ticks per queue ({@link QueueTicks}), and every
 * {@link ScheduleUpkeep#PERIOD} the slower upkeep. Every instance runs it; the compare-and-set in
 * {@code tick.lua} makes one job per tick. Declares the application's {@code @Recurring} schedules
 * when it starts.
 */
public final class ScheduleTimer implements SmartLifecycle {

    private static final Log log = LogFactory.getLog(ScheduleTimer.class);

    static final Duration PERIOD = Duration.ofMillis(500);

    private final ScheduleStore store;
    private final Supplier<List<DeclaredSchedule>> declared;
    private final Supplier<? extends Collection<String>> consumed;
    private final QueueLayouts layouts;
    private final WorkerThreads threads;
    private final Set<QueueName> queues = ConcurrentHashMap.newKeySet();
    private final ScheduleUpkeep upkeep;
    private final QueueTicks ticks;
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
        this.ticks = new QueueTicks(store, upkeep);
    }

    /** The partition whose keys hold the schedules of {@code queue} (and their ticks' jobs): its first. */
    Partition home(QueueName queue) {
        return layouts.layout(queue).schedules();
    }

    /** Ticks the schedules of {@code queue} from now on (the queues of declared schedules are known already). */
    void watch(QueueName queue) {
        queues.add(queue);
        ticks.wake(queue);
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
                if (ticks.idle(queue)) {
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
        return ticks.dueReads(queue);
    }

    /** Publishes the due ticks of one queue (those within the lookahead); returns the number of jobs published. */
    int tick(Partition queue) {
        return ticks.round(queue);
    }

    /**
     * For tests ({@code DelayQueueTester.fastForward}): publishes the ticks of {@code queue}'s
     * schedules that fall within {@code window} from now, each as its job due at its tick, and moves
     * the schedules past them, as if that much time had passed. At most 100,000 ticks per call.
     */
    public long publishTicksWithin(String queue, Duration window) {
        return ticks.fastForward(home(QueueName.of(queue)), window);
    }
}
