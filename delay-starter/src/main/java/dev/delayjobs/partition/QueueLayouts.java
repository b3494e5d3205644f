package dev.delayjobs.partition;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.delayjobs.queue.QueueName;
import dev.delayjobs.redis.QueueLayoutStore;

/**
 * The partition layout of each queue this application uses. Redis records how many partitions a
 * queue is laid out in; an application that configures {@code delay.queues.<q>.partitions}, or
 * consumes the queue, declares its count when it starts, or at its first use of the queue if that
 * comes first ({@link #declare}), which records it when the queue has nothing left under another
 * count and stops startup otherwise. A queue this application only publishes to, without
 * configuring its count, follows what Redis records (read once, and again when a publish meets a
 * layout that changed).
 */
public final class QueueLayouts {

    private static final Log logger = LogFactory.getLog(QueueLayouts.class);

    private final QueueLayoutStore layouts;
    private final Map<QueueName, Integer> configured;
    private final String instanceId;
    /** How long a layout read from Redis, not declared here, is used before it is read again. */
    private static final long FOLLOW_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** The least time between two readings of a layout after a lookup missed (see {@link #recheck}). */
    private static final long RECHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Map<QueueName, Known> known = new ConcurrentHashMap<>();
    /** Run by {@link #declare} between the check of the old layout and the record of the new one (tests drive races here). */
    private volatile Runnable beforeRecord = () -> { };

    /**
     * @param configured the partition count configured per queue ({@code delay.queues.<q>.partitions})
     * @param instanceId this instance's id: its own lease from an earlier run does not count as a live consumer
     */
    public QueueLayouts(QueueLayoutStore layouts, Map<QueueName, Integer> configured, String instanceId) {
        this.layouts = layouts;
        this.configured = Map.copyOf(configured);
        this.instanceId = instanceId;
    }

    /** Declares every queue whose partition count is configured (when the application starts). */
    public void declareConfigured() {
        configured.keySet().forEach(this::declare);
    }

    /**
     * The layout of {@code queue}: the declared one, else the one Redis records, read again when
     * the last reading is more than 10 s old (another application may have laid the queue out anew).
     * A queue whose count is configured is declared first when it is used before the application
     * started (a publish from a bean's {@code @PostConstruct}), so that nothing is routed by another count.
     */
    public QueueLayout layout(QueueName queue) {
        Known entry = known.get(queue);
        if (entry == null && configured.containsKey(queue)) {
            return declare(queue);
        }
        if (entry == null || (!entry.declared && System.nanoTime() - entry.readAt > FOLLOW_NANOS)) {
            entry = read(queue, false);
        }
        return entry.layout;
    }

    /**
     * Called when a lookup by id in {@code used} found nothing (find, cancel, reschedule): reads the
     * layout again, at most once a second per queue, and returns it when it changed, so that the
     * caller asks again in the right partition; null when it did not change.
     */
    public QueueLayout recheck(QueueName queue, QueueLayout used) {
        Known entry = known.get(queue);
        if (entry != null && System.nanoTime() - entry.readAt < RECHECK_NANOS) {
            return null;
        }
        Known now = read(queue, entry != null && entry.declared);
        return now.layout.size() == used.size() ? null : now.layout;
    }

    /**
     * {@link #layout} without waiting for Redis: completes at once with a layout known and fresh,
     * else when Redis answers. A configured queue used before it was declared (a publish before the
     * application started) is declared on the common pool: declaring takes several calls and a lock.
     */
    public CompletableFuture<QueueLayout> layoutAsync(QueueName queue) {
        Known entry = known.get(queue);
        if (entry == null && configured.containsKey(queue)) {
            return CompletableFuture.supplyAsync(() -> declare(queue));
        }
        if (entry == null || (!entry.declared && System.nanoTime() - entry.readAt > FOLLOW_NANOS)) {
            return readAsync(queue, false).thenApply(Known::layout);
        }
        return CompletableFuture.completedFuture(entry.layout);
    }

    /** {@link #recheck} without waiting for Redis. */
    public CompletableFuture<QueueLayout> recheckAsync(QueueName queue, QueueLayout used) {
        Known entry = known.get(queue);
        if (entry != null && System.nanoTime() - entry.readAt < RECHECK_NANOS) {
            return CompletableFuture.completedFuture(null);
        }
        return readAsync(queue, entry != null && entry.declared).thenApply(now -> now.layout.size() == used.size() ? null : now.layout);
    }

    private CompletableFuture<Known> readAsync(QueueName queue, boolean declared) {
        return layouts.recordedAsync(queue).thenApply(count -> {
            Known entry = new Known(layoutOf(queue, count), declared, System.nanoTime());
            known.put(queue, entry);
            return entry;
        });
    }

    private Known read(QueueName queue, boolean declared) {
        Known entry = new Known(layoutOf(queue, layouts.recorded(queue)), declared, System.nanoTime());
        known.put(queue, entry);
        return entry;
    }

    /**
     * Called when a publish found {@code queue} laid out in {@code partitions} partitions now
     * (another application changed it): the layout to route by from now on.
     */
    public QueueLayout changed(QueueName queue, int partitions) {
        QueueLayout now = layoutOf(queue, partitions);
        Known before = known.put(queue, new Known(now, false, System.nanoTime()));
        if (configured.containsKey(queue) && before != null && before.layout.size() != partitions) {
            logger.warn("Queue '" + queue + "' is now laid out in " + partitions + " partition(s) in Redis; this "
                    + "application is configured with delay.queues." + queue + ".partitions=" + configured.get(queue)
                    + " and follows Redis until it restarts with the same count");
        }
        return now;
    }

    /**
     * Declares this application's partition count of {@code queue} (the configured one, else 1):
     * records it when Redis records none or another with nothing left under it, and returns the
     * layout.
     * @throws PartitionLayoutException when Redis records another count and the queue still has jobs
     *     or live consumers under it
     */
    public synchronized QueueLayout declare(QueueName queue) {
        int wanted = configured.getOrDefault(queue, 1);
        Known declared = known.get(queue);
        if (declared != null && declared.declared && declared.layout.size() == wanted) {
            return declared.layout;
        }
        int recorded = layouts.recorded(queue);
        if (recorded != wanted) {
            // the old partitions are closed to publishes and checked in one call each, so that none
            // routed by the old count can slip in between the check and the record
            refuseIfInUse(queue, recorded, wanted, layouts.close(queue, wanted, recorded, instanceId));
            beforeRecord.run();
            logger.info("Queue '" + queue + "': laid out in " + wanted + " partition(s), was " + recorded
                    + " (nothing was left under the old layout)");
            layouts.record(queue, wanted, recorded);
        }
        else {
            // recorded already; told again so that partitions created since (a flushed node), or left
            // closed by a change interrupted half-way, know it too
            layouts.record(queue, wanted, wanted);
        }
        QueueLayout layout = layoutOf(queue, wanted);
        known.put(queue, new Known(layout, true, System.nanoTime()));
        return layout;
    }

    /** For tests: {@code hook} runs in {@link #declare} after the old layout was checked, before the new one is recorded. */
    void beforeRecord(Runnable hook) {
        this.beforeRecord = hook;
    }

    private static void refuseIfInUse(QueueName queue, int recorded, int wanted, QueueLayoutStore.InUse found) {
        if (found.otherChange() != null) {
            throw new PartitionLayoutException("Queue '" + queue + "' is laid out in " + recorded + " partition(s) in "
                    + "Redis, and this application asks for " + wanted + " (delay.queues." + queue + ".partitions), but "
                    + "another application is laying it out anew at the same time (" + found.otherChange() + ").",
                    "Start the applications that change the count of a queue one at a time, all with the same count.");
        }
        long pending = found.waiting();
        long dead = found.dead();
        long consumers = found.consumers();
        if (pending > 0 || dead > 0 || consumers > 0) {
            throw new PartitionLayoutException("Queue '" + queue + "' is laid out in " + recorded + " partition(s) in "
                    + "Redis, and this application asks for " + wanted + " (delay.queues." + queue + ".partitions). Under the "
                    + "current layout it still has " + pending + " waiting or running job(s), " + dead + " dead job(s) and "
                    + consumers + " live consumer instance(s) of other applications; changing the count now would strand them.",
                    "Set delay.queues." + queue + ".partitions=" + recorded + " here (every application that consumes or "
                            + "configures the queue must use the same count), or change it in two steps: stop publishing, "
                            + "let the consumers drain the queue, delete or requeue-and-drain its dead jobs "
                            + "(/actuator/delayqueues), stop the consumers, then start them with the new count.");
        }
    }

    /**
     * A layout this application uses, and when it was read. A declared one was recorded at startup
     * by this application and is not read again on a timer (no other may change it while this one
     * consumes; one that changed it anyway is noticed when a publish or a lookup is refused or misses).
     */
    private record Known(QueueLayout layout, boolean declared, long readAt) {
    }

    private static QueueLayout layoutOf(QueueName queue, int partitions) {
        return QueueLayout.of(queue, partitions);
    }
}
