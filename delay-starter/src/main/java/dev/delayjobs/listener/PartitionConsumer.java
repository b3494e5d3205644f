package dev.delayjobs.listener;

import java.time.Duration;
import java.util.function.BooleanSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.delayjobs.queue.Partition;
import dev.delayjobs.core.JobEvents;
import dev.delayjobs.core.PayloadCodec;
import dev.delayjobs.redis.QueueControls;
import dev.delayjobs.store.PartitionStore;
import dev.delayjobs.threads.WorkerThreads;
import dev.delayjobs.timer.QueueWatchdog;

/**
 * The parts that consume one partition of a queue (the queue itself when it is not partitioned)
 * during one start of its {@link ListenerContainer}: the watchdog's timer and lease on the
 * partition, its {@link ClaimGate}, {@link Claimer}, {@link JobRunner}, {@link AckBatcher} and
 * {@link OutcomeRecorder}, and its view of the queue's {@link QueueSlots} (workers shared with the
 * other partitions, its buffer and held jobs), sharing the queue's {@link PendingAcks} too.
 */
final class PartitionConsumer {

    /** The container's log category, which applications already configure. */
    private static final Log logger = LogFactory.getLog(ListenerContainer.class);

    private final Partition partition;
    private final PartitionStore store;
    private final QueueWatchdog watchdog;
    private final QueueSettings settings;
    private final PartitionSlots slots;
    private final ClaimGate gate;
    private final AckBatcher acks;
    private final JobRunner runner;
    private final Claimer claimer;

    /** Builds the parts; nothing runs, and Redis is not called, until {@link #start}. */
    PartitionConsumer(Partition partition, HandlerEndpoint endpoint, PartitionStore store, QueueWatchdog watchdog,
            QueueControls controls, PayloadCodec codec, JobEvents events,
            WorkerThreads workerThreads, QueueSlots queueSlots, PendingAcks pendingAcks, BooleanSupplier stopping) {
        this.partition = partition;
        this.store = store;
        this.watchdog = watchdog;
        this.settings = endpoint.settings();
        gate = new ClaimGate(partition, controls);
        PrefetchPace pace = prefetchPace(settings.prefetch(), partition.count());
        slots = queueSlots.partition(pace.most());
        acks = new AckBatcher(store, watchdog.instanceId(), pendingAcks, slots::acked, lost -> lost.forEach(slots::lost),
                workerThreads);
        OutcomeRecorder outcomes = new OutcomeRecorder(endpoint, store, watchdog.instanceId(), slots, stopping, events);
        runner = new JobRunner(endpoint, codec, events, outcomes, acks, slots, queueSlots.share(), workerThreads,
                new StartMarks(store), pace);
        claimer = new Claimer(endpoint, partition, store, watchdog.instanceId(), watchdog.settings().heartbeatLease(), gate,
                runner, slots, pace, workerThreads);
    }

    /**
     * Heartbeats the partition and has the watchdog keep it, listens for its pause and resume, and
     * starts the acker and the claimer. After a failure here, {@link #stopClaiming} and
     * {@link #finish} undo what was started.
     */
    void start() {
        watchdog.watch(partition, settings.maxAttempts(), settings.concurrency());
        gate.open(settings.pausedOnStartup());
        acks.start();
        // what this instance id held before (a restart under a fixed delay.instance-id, or stop then
        // start) has no worker here: the claimer's first turn hands it back and claims above its fence
        slots.unknown();
        claimer.start();
    }

    /** This partition's share of the queue's prefetch: fixed, or following its workers' pace. */
    private static PrefetchPace prefetchPace(Integer prefetch, int partitions) {
        if (prefetch == null) {
            return PrefetchPace.adaptive(QueueSlots.share(QueueSettings.MAX_PREFETCH, partitions));
        }
        return PrefetchPace.fixed(QueueSlots.share(prefetch, partitions));
    }

    /** Stops claiming and hands the prefetched jobs back at once; the jobs running go on. */
    void stopClaiming() {
        claimer.stop();
        claimer.handBackPrefetched();
        gate.close();
    }

    /** Waits up to {@code timeout} for the running handlers; returns whether none is left. */
    boolean awaitHandlers(Duration timeout) {
        return slots.awaitEmpty(timeout);
    }

    void interruptHandlers() {
        slots.interruptAll();
    }

    int handlersLeft() {
        return slots.size();
    }

    /**
     * Sends the last acks, stops the heartbeat and hands back what is still held: everything when
     * the handlers finished, else what they do not hold (the rest is recovered when the lease expires).
     */
    void finish(boolean handlersFinished) {
        acks.stop(Duration.ofSeconds(10));
        // heartbeats stop before the release: one after it would enter this instance again
        watchdog.unwatch(partition);
        // raised, not deleted: a claim of the stopped claimer may still be on its way, and must take nothing
        long fence = claimer.stopFence();
        try {
            if (handlersFinished) {
                store.release(watchdog.instanceId(), fence);
            }
            else {
                // handlers ignore the interrupt: handing their jobs back now would run them twice at
                // once; they stay held, and other instances recover them when the lease expires
                logger.warn(partition.describe() + ": " + slots.size() + " handler(s) ignored the interrupt; "
                        + "their jobs are recovered by other instances when the heartbeat lease expires");
                store.releaseAllBut(watchdog.instanceId(), slots.ids(), fence);
            }
        }
        catch (RuntimeException ex) {
            logger.warn(partition.describe() + ": could not hand jobs back at shutdown; other instances recover "
                    + "them when the heartbeat lease expires: " + ex.getMessage());
        }
        runner.shutdown();
    }
}
