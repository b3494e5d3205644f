package dev.delayjobs.listener;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;

/**
 * The {@code concurrency} workers of one queue in this instance, shared by the claimers of its
 * partitions. A claimer takes at most its share of them per claim (all of them for a queue of one
 * partition), and waiting claimers get freed workers in turn, so no partition starves another. A
 * worker that is freed first goes to a job waiting in a partition's {@link PrefetchBuffer}.
 */
final class WorkerPermits {

    private final Semaphore free;
    private final int share;
    private final List<PrefetchBuffer> buffers = new CopyOnWriteArrayList<>();

    WorkerPermits(int concurrency, int partitions) {
        this.free = new Semaphore(concurrency, true);
        // concurrency is at least 1 (QueueSettings), so every share is too
        this.share = ConsumedPartition.share(concurrency, partitions);
    }

    /** Waits for a free worker, then takes more free ones up to the share; returns how many. */
    int await() throws InterruptedException {
        free.acquire();
        return 1 + takeFree(share - 1);
    }

    /** Takes up to {@code most} free workers without waiting; returns how many. */
    int takeFree(int most) {
        int taken = 0;
        while (taken < most && free.tryAcquire()) {
            taken++;
        }
        return taken;
    }

    /** The most workers one claimer takes at once: all of them for a queue of one partition. */
    int share() {
        return share;
    }

    /**
     * Frees workers that {@link #await} or {@link #takeFree} took and did not use, or that finished a
     * job: each goes to a prefetched job if one waits, else back to the claimers.
     */
    void giveBack(int count) {
        free.release(count);
        // after the release, so that a job added to a buffer meanwhile is either seen here or finds
        // the worker free when its own dispatch runs
        for (PrefetchBuffer buffer : buffers) {
            buffer.dispatch();
        }
    }

    void register(PrefetchBuffer buffer) {
        buffers.add(buffer);
    }
}
