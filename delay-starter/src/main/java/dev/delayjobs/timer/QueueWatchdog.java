package dev.delayjobs.timer;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.SmartLifecycle;

import dev.delayjobs.queue.Partition;
import dev.delayjobs.store.Recovery;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.threads.WorkerThreads;

/**
 * The watchdog timer of this instance: one {@link TransferTimer} per consumed queue, a periodic
 * sweep (transfer whatever is due, re-subscribe where the wake subscription was lost, recover the
 * jobs of instances whose lease expired, trim the dead set) and the instance heartbeat.
 *
 * <p>Queues do not wait for each other: each has a lane for its transfers and sweeps and one for
 * its heartbeats ({@link QueueLane}), on threads shared by all queues, and the one scheduler thread
 * only hands tasks to lanes. A call stuck on one queue's Redis shard (a dead or hung master in a
 * cluster) delays that queue only; Redisson's timeouts bound it.
 *
 * <p>Starts before the listener containers and stops after them.
 */
public final class QueueWatchdog implements SmartLifecycle {

    /** Phase of the watchdog: before the containers, which start in {@code PHASE + 100}. */
    public static final int PHASE = Integer.MAX_VALUE - 200;

    private static final Log logger = LogFactory.getLog(QueueWatchdog.class);
    private static final int DEAD_TRIM_BATCH = 1000;

    private final RedisJobStore store;
    private final WatchdogSettings settings;
    private final String instanceId;
    private final WorkerThreads threadSource;
    private final Map<Partition, Watched> watched = new ConcurrentHashMap<>();
    private final AtomicInteger sweeps = new AtomicInteger();

    /** Fires the timers, sweeps and heartbeats; runs no Redis call itself. */
    private volatile ScheduledThreadPoolExecutor scheduler;
    /** Runs the lanes' tasks: as many threads as lanes are busy at once. */
    private ThreadPoolExecutor threads;
    private ScheduledFuture<?> sweep;
    private ScheduledFuture<?> heartbeat;

    public QueueWatchdog(RedisJobStore store, WatchdogSettings settings, String instanceId) {
        this(store, settings, instanceId, WorkerThreads.PLATFORM);
    }

    /** @param threadSource makes the timer thread and the lanes' threads */
    public QueueWatchdog(RedisJobStore store, WatchdogSettings settings, String instanceId, WorkerThreads threadSource) {
        this.store = store;
        this.settings = settings;
        this.instanceId = instanceId;
        this.threadSource = threadSource;
    }

    public String instanceId() {
        return instanceId;
    }

    public WatchdogSettings settings() {
        return settings;
    }

    /**
     * Starts watching a partition of a queue this instance consumes (a queue that is not partitioned
     * is its own single partition): heartbeat at once, then transfer, sweep and recover it until
     * {@link #unwatch}. Each partition is watched on its own, with its own timer and lanes.
     */
    public synchronized void watch(Partition partition, int maxAttempts, int workers) {
        if (scheduler == null) {
            throw new IllegalStateException("the delay queue watchdog is not running");
        }
        String queue = partition.name();
        store.leases().heartbeat(partition, instanceId, settings.heartbeatLease(), workers);
        QueueLane lane = new QueueLane("queue '" + queue + "'", threads);
        TransferTimer timer = new TransferTimer(partition, store, scheduler, lane, settings.transferBatchSize());
        Watched entry = new Watched(partition, timer, lane, new QueueLane("the heartbeat of queue '" + queue + "'", threads),
                maxAttempts, workers);
        Watched previous = watched.put(partition, entry);
        if (previous != null) {
            previous.timer.stop();
        }
        lane.execute(entry.sweepTask);
    }

    /** Stops watching a partition; its jobs stay in Redis for the other instances. */
    public void unwatch(Partition partition) {
        Watched removed = watched.remove(partition);
        if (removed != null) {
            synchronized (removed) {
                // waits for a heartbeat of this queue in progress; none starts after
            }
            removed.timer.stop();
        }
    }

    @Override
    public synchronized void start() {
        if (scheduler != null) {
            return;
        }
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1,
                threadSource.serviceThreads("delay-watchdog-timer-"));
        executor.setRemoveOnCancelPolicy(true);
        threads = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>(),
                threadSource.serviceThreads("delay-watchdog-"));
        long sweepMs = settings.sweepInterval().toMillis();
        long heartbeatMs = settings.heartbeatInterval().toMillis();
        sweep = executor.scheduleWithFixedDelay(this::sweepAll, sweepMs, sweepMs, TimeUnit.MILLISECONDS);
        heartbeat = executor.scheduleAtFixedRate(this::heartbeatAll, heartbeatMs, heartbeatMs, TimeUnit.MILLISECONDS);
        scheduler = executor;
    }

    @Override
    public synchronized void stop() {
        ScheduledThreadPoolExecutor executor = scheduler;
        if (executor == null) {
            return;
        }
        watched.values().forEach(w -> w.timer.stop());
        watched.clear();
        sweep.cancel(false);
        heartbeat.cancel(false);
        executor.shutdownNow();
        threads.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
            threads.awaitTermination(5, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        scheduler = null;
    }

    @Override
    public boolean isRunning() {
        return scheduler != null;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /** Hands each queue's sweep to its lane; a lane still busy with the last one gets no second. */
    void sweepAll() {
        boolean trim = sweeps.getAndIncrement() % 60 == 0;
        watched.values().forEach(w -> {
            if (trim) {
                w.trimDue = true;
            }
            w.lane.execute(w.sweepTask);
        });
    }

    private void sweep(Watched w) {
        String queue = w.partition.name();
        try {
            w.timer.sweep();
            Recovery recovery = store.leases().recoverExpired(w.partition, w.maxAttempts);
            if (recovery.instances() > 0) {
                logger.warn("Queue '" + queue + "': " + recovery.instances() + " consumer instance(s) stopped "
                        + "heartbeating; " + recovery.requeued() + " job(s) sent back to ready, " + recovery.buried()
                        + " buried after their last attempt");
            }
            if (w.trimDue) {
                w.trimDue = false;
                trimDead(w.partition);
            }
        }
        catch (RuntimeException ex) {
            logger.warn("Sweep of queue '" + queue + "' failed; the next sweep tries again: " + ex.getMessage());
        }
    }

    /** Deletes expired dead jobs, at most ten batches per call so one sweep stays short. */
    private void trimDead(Partition partition) {
        for (int batch = 0; batch < 10; batch++) {
            if (store.deadJobs().trim(partition, settings.deadRetention(), DEAD_TRIM_BATCH) < DEAD_TRIM_BATCH) {
                return;
            }
        }
    }

    /** Hands each queue's heartbeat to its own lane: a slow transfer or sweep never delays a lease renewal. */
    void heartbeatAll() {
        watched.values().forEach(w -> w.heartbeatLane.execute(w.heartbeatTask));
    }

    private void heartbeat(Watched w) {
        // under the entry's lock, so that once unwatch() returns no heartbeat of the queue runs
        // (one landing after the container released its jobs would leave a ghost consumer)
        synchronized (w) {
            if (watched.get(w.partition) != w) {
                return;
            }
            try {
                store.leases().heartbeat(w.partition, instanceId, settings.heartbeatLease(), w.workers);
            }
            catch (RuntimeException ex) {
                logger.warn("Heartbeat on queue '" + w.partition.name() + "' failed: " + ex.getMessage());
            }
        }
    }

    /** A watched partition: its timer, its lanes, and the tasks it queues in them (one instance each, so never twice). */
    private final class Watched {

        final Partition partition;
        final TransferTimer timer;
        final QueueLane lane;
        final QueueLane heartbeatLane;
        final int maxAttempts;
        final int workers;
        final Runnable sweepTask = () -> sweep(this);
        final Runnable heartbeatTask = () -> heartbeat(this);
        volatile boolean trimDue = true;

        Watched(Partition partition, TransferTimer timer, QueueLane lane, QueueLane heartbeatLane, int maxAttempts,
                int workers) {
            this.partition = partition;
            this.timer = timer;
            this.lane = lane;
            this.heartbeatLane = heartbeatLane;
            this.maxAttempts = maxAttempts;
            this.workers = workers;
        }
    }
}
