package dev.delayjobs.listener;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Where the claimed jobs of one queue are in this instance: the queue's {@code concurrency} workers,
 * shared by its partitions, and per partition ({@link PartitionSlots}) the room of its prefetch
 * buffer, the jobs waiting there, and the jobs held (running, waiting, or with their ack pending).
 * The only place any of these change: the claimer reserves and delivers, the workers finish, the
 * acker and the outcome recorder settle. Nothing here calls back: a method that hands a worker a job
 * returns that job to its caller, which starts or runs it. This class keeps the workers and who gets
 * a freed one; {@link PartitionSlots} keeps a partition's buffer and held jobs.
 *
 * <p>A claimer takes at most its share of the workers per claim (all of them for a queue of one
 * partition), and claimers waiting for a worker are served in turn, so no partition starves another.
 * A worker that is freed goes first to the next job waiting in its partition's buffer (see
 * {@link WaitingJobs}), then to one waiting in another partition's, and only then back to the
 * claimers.
 *
 * <p>No prefetched job is stranded in a buffer while a worker is free: every change, of the workers
 * here and of every partition's buffer and held jobs, is made under this one lock ({@link #lock},
 * shared by the partitions), and it keeps "no worker is free while a job waits" true after each step.
 * The steps that add waiting jobs ({@link PartitionSlots#deliver}) give them the free workers in the
 * same step ({@link #takeFreeWorker}), and the only step that frees a worker ({@link #assign}) gives
 * it to a waiting job if there is one; since both look under the same lock, neither can miss what
 * the other did.
 */
final class QueueSlots {

    /** The one lock of the queue's slots: the partitions' buffers and held jobs change under it too. */
    final ReentrantLock lock = new ReentrantLock();
    /** Signalled when a worker is freed while claimers wait for one. */
    private final Condition workerFreed = lock.newCondition();
    /** The claimers waiting for a worker, in the order they came: the first is served first. */
    private final ArrayDeque<Object> claimersWaiting = new ArrayDeque<>();
    private final List<PartitionSlots> partitions = new ArrayList<>();
    private final int share;
    private int free;

    QueueSlots(int concurrency, int partitions) {
        this.free = concurrency;
        // concurrency is at least 1 (QueueSettings), so every share is too
        this.share = share(concurrency, partitions);
    }

    /** What each of {@code partitions} partitions gets of {@code total} split between them: rounded up, so none is left out. */
    static int share(int total, int partitions) {
        return (total + partitions - 1) / partitions;
    }

    /** The most workers one claimer takes at once: all of them for a queue of one partition. */
    int share() {
        return share;
    }

    <T> T locked(Supplier<T> read) {
        lock.lock();
        try {
            return read.get();
        }
        finally {
            lock.unlock();
        }
    }

    void locked(Runnable change) {
        lock.lock();
        try {
            change.run();
        }
        finally {
            lock.unlock();
        }
    }

    /** How many claimers wait for a worker now. */
    int claimersWaiting() {
        return locked(claimersWaiting::size);
    }

    /** Adds a partition whose buffer holds up to {@code bufferCapacity} jobs (0 without prefetch). */
    PartitionSlots partition(int bufferCapacity) {
        return locked(() -> {
            PartitionSlots partition = new PartitionSlots(this, bufferCapacity);
            partitions.add(partition);
            return partition;
        });
    }

    /**
     * A worker with no job: the oldest job waiting in {@code first}'s buffer, else in the others' in
     * turn, which the worker then runs; else the worker is freed for the claimers (null). Under the lock.
     */
    Execution assign(PartitionSlots first) {
        int at = partitions.indexOf(first);
        for (int i = 0; i < partitions.size(); i++) {
            Execution next = partitions.get((at + i) % partitions.size()).takeWaiting();
            if (next != null) {
                return next;
            }
        }
        free++;
        if (!claimersWaiting.isEmpty()) {
            workerFreed.signalAll();
        }
        return null;
    }

    /** Takes a free worker for a job that waits now; false when none is free. Under the lock. */
    boolean takeFreeWorker() {
        if (free == 0) {
            return false;
        }
        free--;
        return true;
    }

    /** Takes the free workers up to the share, without waiting (a claim that also fills a buffer). Under the lock. */
    int takeWorkers() {
        int taken = Math.min(free, share);
        free -= taken;
        return taken;
    }

    /** Waits, in turn with the other claimers, for a free worker; then takes the free ones up to the share. Under the lock. */
    int awaitWorkers() throws InterruptedException {
        Object turn = new Object();
        claimersWaiting.add(turn);
        try {
            while (free == 0 || claimersWaiting.peek() != turn) {
                workerFreed.await();
            }
            return takeWorkers();
        }
        finally {
            claimersWaiting.remove(turn);
            if (free > 0 && !claimersWaiting.isEmpty()) {
                workerFreed.signalAll();
            }
        }
    }

    /**
     * What one claim may fill: workers for jobs that start at once, and room in the buffer for jobs
     * that wait there.
     */
    record Reservation(int workers, int room) {

        static final Reservation NONE = new Reservation(0, 0);

        int jobs() {
            return workers + room;
        }
    }
}
