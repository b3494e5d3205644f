package dev.delayjobs.listener;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.delayjobs.queue.Partition;
import dev.delayjobs.redis.ChannelSubscription;
import dev.delayjobs.store.Claim;
import dev.delayjobs.redis.QueueControls;

/**
 * Holds the claimer of one queue back while the queue is paused or its rate limit lets no job
 * start, so that it neither spins on claims that take nothing nor sleeps past a resume: a message
 * on the queue's control channel ends the wait at once, and a paused queue is asked again every
 * second in case the message was lost (a reconnect).
 */
final class ClaimGate implements AutoCloseable {

    private static final Log logger = LogFactory.getLog(ClaimGate.class);
    private static final long RECHECK_MILLIS = 1000;

    private final Partition partition;
    private final QueueControls controls;
    private final Object changed = new Object();
    private long changes;
    private boolean pausedSeen;
    private ChannelSubscription subscription;

    ClaimGate(Partition partition, QueueControls controls) {
        this.partition = partition;
        this.controls = controls;
    }

    /** Listens for control changes; with {@code pauseFirst}, pauses a queue never paused nor resumed. */
    void open(boolean pauseFirst) {
        if (pauseFirst && controls.pause(partition, true)) {
            logger.info(partition.describe() + " paused on startup (delay.queues." + partition.queue() + ".paused-on-startup): "
                    + "no instance consumes it until it is resumed");
        }
        try {
            subscription = controls.subscribe(partition, this::signal);
        }
        catch (RuntimeException ex) {
            // the once-a-second check still ends a pause; only its promptness is lost
            logger.warn(partition.describe() + ": could not listen for pause and resume; checking every second: "
                    + ex.getMessage());
        }
    }

    /** Whether {@code claim} says to wait before the next one: the queue is paused, or rate limited. */
    boolean holdsBack(Claim claim) {
        if (claim.paused() != pausedSeen) {
            pausedSeen = claim.paused();
            logger.info(pausedSeen ? partition.describe() + " is paused: not claiming until it is resumed"
                    : partition.describe() + " is no longer paused: claiming again");
        }
        return claim.paused() || claim.rateLimitedForMillis() > 0;
    }

    /**
     * Waits until the control of the queue changes, or until the rate limit lets the next job start,
     * at most a second. Returns early, with the interrupt flag set, when the thread is interrupted.
     */
    void await(Claim claim) {
        long wait = claim.paused() ? RECHECK_MILLIS : Math.min(RECHECK_MILLIS, claim.rateLimitedForMillis());
        long deadline = System.nanoTime() + Duration.ofMillis(wait).toNanos();
        synchronized (changed) {
            long seen = changes;
            long left;
            while (changes == seen && (left = deadline - System.nanoTime()) > 0) {
                try {
                    changed.wait(Math.max(1, left / 1_000_000));
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** How many control changes were heard so far: a claimer that sees it grow asks Redis for the new state. */
    long changes() {
        synchronized (changed) {
            return changes;
        }
    }

    private void signal() {
        synchronized (changed) {
            changes++;
            changed.notifyAll();
        }
    }

    @Override
    public void close() {
        if (subscription != null) {
            subscription.close();
            subscription = null;
        }
    }
}
