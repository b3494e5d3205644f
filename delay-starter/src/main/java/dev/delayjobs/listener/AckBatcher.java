package dev.delayjobs.listener;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.redis.StoredJob;

/**
 * Records the acks of one partition consumer. Workers hand over a job whose handler returned; a
 * busy consumer's claimer takes the waiting acks into its next claim ({@code claim.lua} finishes
 * them first), so acks cost no call of their own. The acker thread sends in one {@code ack.lua}
 * call what the claimer will not take soon: every ack while the claimer waits (the queue empty,
 * paused or rate limited, or claiming failed), else an ack that waited {@link #LINGER}.
 *
 * <p>A job stays in the container's in-flight set until its ack is recorded, so a hand-back of
 * held jobs never releases a job that only waits for its ack. A failed ack call is retried, like
 * any outcome: after 50 ms, doubling up to 2 s, for a minute (a few seconds when stopping); after
 * that the jobs are reported as {@code lost} (they stay held and are handed back and delivered
 * again). The acks of a failed claim go back to the front of the queue.
 */
final class AckBatcher {

    private static final Log logger = LogFactory.getLog(AckBatcher.class);
    /** Jobs per ack call, or carried by one claim: bounds how long one call holds Redis. */
    static final int MAX_BATCH = 500;
    /** Acks waiting to be sent; a full queue makes the workers wait (backpressure while Redis is slow). */
    static final int MAX_PENDING = 10_000;
    /**
     * Longest an ack waits for a claim to carry it while the claimer is busy: a claimer waiting for
     * a worker another partition took may not claim for a while.
     */
    static final Duration LINGER = Duration.ofMillis(10);

    private final String queue;
    private final RedisJobStore store;
    private final String instance;
    private final Consumer<StoredJob> acked;
    private final Consumer<List<StoredJob>> lost;
    private final Thread thread;
    // all guarded by this
    private final ArrayDeque<StoredJob> pending = new ArrayDeque<>();
    /** When the oldest pending ack was queued (System.nanoTime). */
    private long oldestQueuedAt;
    /** Whether the claimer is about to claim, and will carry the pending acks. */
    private boolean claimerTakes;
    private boolean stopping;
    /** Set when the acker thread will read no more acks. */
    private boolean exited;

    AckBatcher(String queue, RedisJobStore store, String instance, Consumer<StoredJob> acked,
            Consumer<List<StoredJob>> lost) {
        this.queue = queue;
        this.store = store;
        this.instance = instance;
        this.acked = acked;
        this.lost = lost;
        this.thread = new Thread(this::run, "delay-" + queue + "-acker");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /**
     * Queues the ack of a job whose handler returned. Once the acker has stopped (a handler that
     * ignored the shutdown interrupt returns late), the ack is recorded at once on the caller's
     * thread rather than left in a queue nobody reads.
     */
    void add(StoredJob job) {
        synchronized (this) {
            try {
                // a full queue (Redis slow or down) makes the worker wait
                while (pending.size() >= MAX_PENDING && !exited) {
                    wait(100);
                }
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                lost.accept(List.of(job)); // handed back and delivered again: at least once
                return;
            }
            if (!exited) {
                queue(job);
                return;
            }
        }
        record(new ArrayList<>(List.of(job)));
    }

    private void queue(StoredJob job) {
        if (pending.isEmpty()) {
            oldestQueuedAt = System.nanoTime();
        }
        pending.addLast(job);
        notifyAll();
    }

    /** Tells whether the claimer is about to claim (it then carries the pending acks) or is going to wait. */
    synchronized void claimerTakes(boolean takes) {
        if (claimerTakes != takes) {
            claimerTakes = takes;
            notifyAll();
        }
    }

    /** The pending acks, up to {@link #MAX_BATCH}, for the claimer to send with its claim. */
    synchronized List<StoredJob> takeForClaim() {
        return take();
    }

    /** The claim that carried {@code acks} returned: {@code deleted} of them deleted their job. */
    void carried(List<StoredJob> acks, int deleted) {
        if (acks.isEmpty()) {
            return;
        }
        logRefused(acks.size(), deleted);
        acks.forEach(acked);
    }

    /** The claim that carried {@code acks} failed: they are sent again, first (here, if the acker stopped). */
    void notCarried(List<StoredJob> acks) {
        if (acks.isEmpty()) {
            return;
        }
        synchronized (this) {
            if (!exited) {
                for (int i = acks.size() - 1; i >= 0; i--) {
                    pending.addFirst(acks.get(i));
                }
                oldestQueuedAt = System.nanoTime() - LINGER.toNanos();
                notifyAll();
                return;
            }
        }
        record(new ArrayList<>(acks));
    }

    /** Sends the acks still queued, then stops; waits up to {@code timeout}. */
    void stop(Duration timeout) {
        synchronized (this) {
            stopping = true;
            notifyAll();
        }
        try {
            thread.join(timeout.toMillis());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private List<StoredJob> take() {
        List<StoredJob> batch = new ArrayList<>(Math.min(pending.size(), MAX_BATCH));
        while (!pending.isEmpty() && batch.size() < MAX_BATCH) {
            batch.add(pending.pollFirst());
        }
        if (!pending.isEmpty()) {
            oldestQueuedAt = System.nanoTime();
        }
        notifyAll();
        return batch;
    }

    private void run() {
        while (true) {
            List<StoredJob> batch = awaitBatch();
            if (batch == null) {
                return;
            }
            record(batch);
        }
    }

    /** Waits for acks the claimer will not carry; null once stopping with none left. */
    private synchronized List<StoredJob> awaitBatch() {
        while (true) {
            try {
                if (pending.isEmpty()) {
                    if (stopping) {
                        exited = true;
                        notifyAll();
                        return null;
                    }
                    wait(100);
                    continue;
                }
                long waited = System.nanoTime() - oldestQueuedAt;
                if (stopping || !claimerTakes || waited >= LINGER.toNanos()) {
                    return take();
                }
                TimeUnit.NANOSECONDS.timedWait(this, LINGER.toNanos() - waited);
            }
            catch (InterruptedException ex) {
                // nobody interrupts the acker but the JVM going down: go on until told to stop
            }
        }
    }

    private void record(List<StoredJob> batch) {
        RuntimeException failure = OutcomeRetry.run(() -> logRefused(batch.size(), store.ack(queue, instance, batch)),
                this::isStopping);
        if (failure == null) {
            batch.forEach(acked);
        }
        else {
            logger.error("Queue '" + queue + "': could not record the ack of " + batch.size()
                    + " job(s); they will be handed back and delivered again: " + failure.getMessage());
            lost.accept(List.copyOf(batch));
        }
    }

    private synchronized boolean isStopping() {
        return stopping;
    }

    private void logRefused(int sent, int deleted) {
        if (deleted < sent) {
            // the job was recovered by another instance meanwhile (this one lost its lease), or replaced
            logger.info("Queue '" + queue + "': " + (sent - deleted) + " of " + sent
                    + " ack(s) refused: those jobs were no longer held by this instance");
        }
    }
}
