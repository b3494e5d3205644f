package dev.delayjobs.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.delayjobs.store.PartitionStore;
import dev.delayjobs.store.StoredJob;
import dev.delayjobs.threads.WorkerThreads;

/**
 * Records the acks of one container: workers hand over a job whose handler returned, and one thread
 * sends every ack that accumulated while the previous call was in flight in a single
 * {@code ack.lua} call. A lone ack goes out at once; under load, acks share round trips.
 *
 * <p>A job stays in the container's in-flight set until its ack is recorded, so a hand-back of
 * held jobs never releases a job that only waits for its ack. A failed call is retried, like any
 * outcome: after 50 ms, doubling up to 2 s, for a minute (a few seconds when stopping); after that
 * the jobs are reported as {@code lost} (they stay held and are handed back and delivered again).
 *
 * <p>Each queued ack holds a place of the queue's {@link PendingAcks} until it is recorded or
 * reported lost, so the partitions of a queue together hold at most {@link PendingAcks#MAX}.
 */
final class AckBatcher {

    private static final Log logger = LogFactory.getLog(AckBatcher.class);
    /** Jobs per ack call: bounds how long one call holds Redis. */
    static final int MAX_BATCH = 500;

    private final String queue;
    private final PartitionStore store;
    private final String instance;
    private final Consumer<StoredJob> acked;
    private final Consumer<List<StoredJob>> lost;
    /** The queue's cap, shared with its other partitions: when full, the workers wait (backpressure while Redis is slow). */
    private final PendingAcks places;
    /** Acks waiting to be sent, each holding a place. */
    private final LinkedBlockingQueue<StoredJob> pending = new LinkedBlockingQueue<>();
    private final Thread thread;
    private volatile boolean stopping;
    /** Set, under this object's lock, when the acker thread will read no more acks. */
    private boolean exited;

    AckBatcher(PartitionStore store, String instance, PendingAcks places, Consumer<StoredJob> acked,
            Consumer<List<StoredJob>> lost) {
        this(store, instance, places, acked, lost, WorkerThreads.PLATFORM);
    }

    AckBatcher(PartitionStore store, String instance, PendingAcks places, Consumer<StoredJob> acked,
            Consumer<List<StoredJob>> lost, WorkerThreads threads) {
        this.queue = store.name();
        this.places = places;
        this.store = store;
        this.instance = instance;
        this.acked = acked;
        this.lost = lost;
        this.thread = threads.service("delay-" + queue + "-acker", this::run);
        this.thread.setDaemon(true);
    }

    /** Starts the acker thread; before it, {@link #stop} has nothing to wait for. */
    void start() {
        thread.start();
    }

    /**
     * Queues the ack of a job whose handler returned. Once the acker has stopped (a handler that
     * ignored the shutdown interrupt returns late), the ack is recorded at once on the caller's
     * thread rather than left in a queue nobody reads.
     *
     * <p>An interrupt does not cost the ack: a handler that returns with its interrupt flag set (one
     * that ignored the shutdown interrupt, or restored it) is done, and running it again would be a
     * duplicate. The flag is cleared while the ack is queued or recorded and set again on return.
     */
    void add(StoredJob job) {
        boolean interrupted = Thread.interrupted();
        try {
            // no free place (the acks are behind: Redis slow or down) makes the worker wait
            while (true) {
                try {
                    if (places.take(100)) {
                        break;
                    }
                }
                catch (InterruptedException ex) {
                    interrupted = true;
                    continue;
                }
                if (hasExited()) {
                    record(new ArrayList<>(List.of(job)), 0);
                    return;
                }
            }
            pending.add(job);
            if (hasExited()) {
                // queued after the acker stopped reading: send what is left here
                List<StoredJob> left = new ArrayList<>();
                pending.drainTo(left);
                if (!left.isEmpty()) {
                    record(left, left.size());
                }
            }
        }
        finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private synchronized boolean hasExited() {
        return exited;
    }

    /** Sends the acks still queued, then stops; waits up to {@code timeout}. */
    void stop(Duration timeout) {
        stopping = true;
        try {
            thread.join(timeout.toMillis());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        List<StoredJob> batch = new ArrayList<>();
        while (true) {
            StoredJob first;
            try {
                first = pending.poll(100, TimeUnit.MILLISECONDS);
            }
            catch (InterruptedException ex) {
                first = pending.poll();
            }
            if (first == null) {
                if (stopping) {
                    synchronized (this) {
                        if (pending.isEmpty()) {
                            exited = true;
                            return;
                        }
                    }
                }
                continue;
            }
            batch.add(first);
            pending.drainTo(batch, MAX_BATCH - 1);
            record(batch, batch.size());
            batch.clear();
        }
    }

    /** Records the acks of {@code batch}, then frees the {@code placesHeld} places they held. */
    private void record(List<StoredJob> batch, int placesHeld) {
        try {
            send(batch);
        }
        finally {
            places.giveBack(placesHeld);
        }
    }

    private void send(List<StoredJob> batch) {
        RuntimeException failure = OutcomeRetry.run(() -> {
            int deleted = store.ack(instance, batch);
            if (deleted < batch.size()) {
                // the job was recovered by another instance meanwhile (this one lost its lease), or replaced
                logger.info("Queue '" + queue + "': " + (batch.size() - deleted) + " of " + batch.size()
                        + " ack(s) refused: those jobs were no longer held by this instance");
            }
        }, () -> stopping);
        if (failure == null) {
            batch.forEach(acked);
        }
        else {
            logger.error("Queue '" + queue + "': could not record the ack of " + batch.size()
                    + " job(s); they will be handed back and delivered again: " + failure.getMessage());
            lost.accept(List.copyOf(batch));
        }
    }
}
