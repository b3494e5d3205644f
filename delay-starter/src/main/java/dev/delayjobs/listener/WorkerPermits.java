package dev.delayjobs.listener;

import java.util.concurrent.Semaphore;

/**
 * The {@code concurrency} workers of one queue in this instance, shared by the claimers of its
 * partitions. A claimer takes at most its share of them per claim (all of them for a queue of one
 * partition), and waiting claimers get freed workers in turn, so no partition starves another.
 */
final class WorkerPermits {

    private final Semaphore free;
    private final int share;

    WorkerPermits(int concurrency, int partitions) {
        this.free = new Semaphore(concurrency, true);
        this.share = Math.max(1, (concurrency + partitions - 1) / partitions);
    }

    /** Waits for a free worker, then takes more free ones up to the share; returns how many. */
    int await() throws InterruptedException {
        free.acquire();
        int taken = 1;
        while (taken < share && free.tryAcquire()) {
            taken++;
        }
        return taken;
    }

    /** The most workers one claimer takes at once: all of them for a queue of one partition. */
    int share() {
        return share;
    }

    /** Gives back workers that {@link #await} took and did not use, or that finished a job. */
    void giveBack(int count) {
        free.release(count);
    }
}
