package dev.delayjobs.listener;

import java.util.concurrent.ScheduledFuture;

import dev.delayjobs.store.StoredJob;

/**
 * One claimed job, handed to a worker at once or after it waited in its partition's buffer
 * ({@link PartitionSlots}). Its
 * outcome is recorded once: by the worker when the handler returns or throws, or by the handler
 * timeout, whichever settles it first.
 */
final class Execution {

    /** The runner of the job's partition, which runs it on whichever worker the job is handed. */
    final JobRunner runner;
    final StoredJob job;
    /** The Redis server clock when the job was claimed, epoch ms. */
    final long claimServerNow;
    /** {@link System#nanoTime()} when the claim's reply arrived: lateness counts the wait since then. */
    final long claimedAt;
    /** Whether the claim left it PREFETCHED: its worker sends a start mark. */
    final boolean prefetched;
    /** Whether it is suspect (see {@link dev.delayjobs.store.Claim#suspects()}): its start mark is awaited. */
    final boolean suspect;
    private Thread handler;
    private ScheduledFuture<?> timeout;
    private boolean settled;
    private boolean shutdownInterrupt;
    private boolean permitKept;
    private boolean ackPending;

    Execution(JobRunner runner, StoredJob job, long claimServerNow, long claimedAt, boolean prefetched, boolean suspect) {
        this.runner = runner;
        this.job = job;
        this.claimServerNow = claimServerNow;
        this.claimedAt = claimedAt;
        this.prefetched = prefetched;
        this.suspect = suspect;
    }

    /** Whether its outcome is being recorded already: the handler returned or threw, or its timeout fired. */
    synchronized boolean settled() {
        return settled;
    }

    synchronized void handlerStarted(Thread thread) {
        handler = thread;
    }

    synchronized void timeout(ScheduledFuture<?> future) {
        if (settled) {
            future.cancel(false);
        }
        else {
            timeout = future;
        }
    }

    /** Called by the worker when the handler is done; false if the timeout settled the job first. */
    synchronized boolean settle() {
        if (settled) {
            return false;
        }
        settled = true;
        handler = null;
        if (timeout != null) {
            timeout.cancel(false);
        }
        return true;
    }

    /**
     * Called when the timeout fires: settles the job and interrupts the handler, unless the
     * worker settled it first. Under the same lock as {@link #settle()}, so the interrupt
     * reaches the handler's thread before that thread can move on to another job.
     */
    synchronized boolean expire() {
        if (settled) {
            return false;
        }
        settled = true;
        if (handler != null) {
            handler.interrupt();
            handler = null;
        }
        return true;
    }

    /**
     * Interrupts the handler if it is still running (shutdown). The worker still records the
     * outcome: an ack if the handler returns, nothing if it throws (the job is handed back).
     */
    synchronized void interruptHandler() {
        if (!settled && handler != null) {
            shutdownInterrupt = true;
            handler.interrupt();
        }
    }

    synchronized boolean interruptedByShutdown() {
        return shutdownInterrupt;
    }

    synchronized void keepPermit() {
        permitKept = true;
    }

    /** Whether the handler's thread, abandoned after a timeout, gives the worker's permit back when it returns. */
    synchronized boolean permitKept() {
        return permitKept;
    }

    /** Its ack was queued: the job stays held until the acker recorded it (or gave up). */
    synchronized void ackQueued() {
        ackPending = true;
    }

    synchronized boolean ackPending() {
        return ackPending;
    }
}
