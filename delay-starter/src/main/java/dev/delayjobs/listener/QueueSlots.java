package dev.delayjobs.listener;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import dev.delayjobs.store.StoredJob;

/**
 * Where the claimed jobs of one queue are in this instance: the queue's {@code concurrency} workers,
 * shared by its partitions, and per partition ({@link Partition}) the room of its prefetch buffer,
 * the jobs waiting there, and the jobs held (running, waiting, or with their ack pending). The only
 * place any of these change: the claimer reserves and delivers, the workers finish, the acker and
 * the outcome recorder settle. Nothing here calls back: a method that hands a worker a job returns
 * that job to its caller, which starts or runs it.
 *
 * <p>A claimer takes at most its share of the workers per claim (all of them for a queue of one
 * partition), and claimers waiting for a worker are served in turn, so no partition starves another.
 * A worker that is freed goes first to the oldest job waiting in its partition's buffer, then to one
 * waiting in another partition's, and only then back to the claimers.
 *
 * <p>No prefetched job is stranded in a buffer while a worker is free: every change is made under
 * one lock, and it keeps "no worker is free while a job waits" true after each step. The steps that
 * add waiting jobs ({@link Partition#deliver}) give them the free workers in the same step, and the
 * only step that frees a worker ({@link #assign}) gives it to a waiting job if there is one; since
 * both look under the same lock, neither can miss what the other did.
 */
final class QueueSlots {

    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when a worker is freed while claimers wait for one. */
    private final Condition workerFreed = lock.newCondition();
    /** The claimers waiting for a worker, in the order they came: the first is served first. */
    private final ArrayDeque<Object> claimersWaiting = new ArrayDeque<>();
    private final List<Partition> partitions = new ArrayList<>();
    private final int share;
    private int free;

    QueueSlots(int concurrency, int partitions) {
        this.free = concurrency;
        // concurrency is at least 1 (QueueSettings), so every share is too
        this.share = ConsumedPartition.share(concurrency, partitions);
    }

    /** The most workers one claimer takes at once: all of them for a queue of one partition. */
    int share() {
        return share;
    }

    private <T> T locked(Supplier<T> read) {
        lock.lock();
        try {
            return read.get();
        }
        finally {
            lock.unlock();
        }
    }

    private void locked(Runnable change) {
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
    Partition partition(int bufferCapacity) {
        return locked(() -> {
            Partition partition = new Partition(bufferCapacity);
            partitions.add(partition);
            return partition;
        });
    }

    /**
     * A worker with no job: the oldest job waiting in {@code first}'s buffer, else in the others' in
     * turn, which the worker then runs; else the worker is freed for the claimers (null). Under the lock.
     */
    private Execution assign(Partition first) {
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

    /** Waits, in turn with the other claimers, for a free worker; then takes the free ones up to the share. Under the lock. */
    private int awaitWorkers() throws InterruptedException {
        Object turn = new Object();
        claimersWaiting.add(turn);
        try {
            while (free == 0 || claimersWaiting.peek() != turn) {
                workerFreed.await();
            }
            int taken = Math.min(free, share);
            free -= taken;
            return taken;
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

    /** One partition's view: its buffer and held jobs, and the queue's workers. */
    final class Partition {

        private final int capacity;
        /** The buffer's room: capacity minus the jobs waiting and the room reserved by a claim in flight. */
        private int room;
        private final ArrayDeque<Execution> waiting = new ArrayDeque<>();
        private final Map<String, Execution> held = new HashMap<>();
        /** Whether this instance may hold jobs in the store that it does not know of. */
        private boolean unknown;
        private final Condition roomMade = lock.newCondition();
        private final Condition emptied = lock.newCondition();

        private Partition(int capacity) {
            this.capacity = capacity;
            this.room = capacity;
        }

        /** The most jobs its buffer may ever hold: 0 without prefetch. */
        int capacity() {
            return capacity;
        }

        /**
         * Reserves what the next claim may fill. With {@code target} 0 (no buffer): waits, in turn
         * with the other partitions' claimers, for a free worker, then takes the free ones up to the
         * share. Else: waits up to {@code roomWait} until fewer than {@code target} jobs wait in the
         * buffer or are on their way, then takes the room up to {@code target} and the free workers
         * up to the share; {@link Reservation#NONE} when no room was made in time.
         */
        Reservation reserve(int target, Duration roomWait) throws InterruptedException {
            lock.lock();
            try {
                if (target == 0) {
                    return new Reservation(awaitWorkers(), 0);
                }
                // the room beyond the target is held back
                int beyond = capacity - Math.min(target, capacity);
                long left = roomWait.toNanos();
                while (room <= beyond) {
                    if (left <= 0) {
                        return Reservation.NONE;
                    }
                    left = roomMade.awaitNanos(left);
                }
                int roomTaken = room - beyond;
                room -= roomTaken;
                int workers = Math.min(free, share);
                free -= workers;
                return new Reservation(workers, roomTaken);
            }
            finally {
                lock.unlock();
            }
        }

        /**
         * Hands over what a claim made under {@code reservation} took ({@code claimed}, oldest first,
         * none when it failed): all become held, the first {@code reservation.workers()} start on the
         * workers reserved, the others wait in the buffer. The workers not used go to jobs waiting
         * in a buffer, or back to the claimers; the room not used is freed. Returns the jobs to start
         * now, each on a worker taken for it (a waiting job of another partition among them).
         */
        List<Execution> deliver(Reservation reservation, List<Execution> claimed) {
            int started = Math.min(reservation.workers(), claimed.size());
            if (claimed.size() - started > reservation.room()) {
                throw new IllegalArgumentException(claimed.size() + " jobs claimed for " + reservation);
            }
            lock.lock();
            try {
                claimed.forEach(execution -> held.put(execution.job.id(), execution));
                List<Execution> now = new ArrayList<>(claimed.subList(0, started));
                List<Execution> prefetched = claimed.subList(started, claimed.size());
                waiting.addAll(prefetched);
                freeRoom(reservation.room() - prefetched.size());
                for (int i = started; i < reservation.workers(); i++) {
                    Execution next = assign(this);
                    if (next != null) {
                        now.add(next);
                    }
                }
                // a worker freed while the claim was on its way takes a job that waits now
                while (free > 0 && !waiting.isEmpty()) {
                    free--;
                    now.add(takeWaiting());
                }
                return now;
            }
            finally {
                lock.unlock();
            }
        }

        /**
         * The job of {@code done} ended on the caller's worker: it leaves the held jobs unless its ack
         * is pending (then {@link #acked} or {@link #lost} lets it go). Returns the next job the worker
         * runs (this partition's oldest waiting job, else another partition's), or null when the
         * worker is freed.
         */
        Execution finished(Execution done) {
            return locked(() -> {
                if (!done.ackPending()) {
                    leave(done);
                }
                return assign(this);
            });
        }

        /**
         * A worker that has no job (a handler thread that kept its worker past its timeout and
         * returned, say): returns the next job for it, or null when it is freed.
         */
        Execution workerIdle() {
            return locked(() -> assign(this));
        }

        /**
         * The handler of {@code timedOut} ran past its timeout and its failed attempt is recorded: the
         * job leaves, while its thread may run on. With {@code freeWorker} its worker passes to the
         * caller, which gets the next job for it (or null: the worker is freed); without, the stuck
         * thread keeps the worker until it returns ({@link #workerIdle}).
         */
        Execution abandoned(Execution timedOut, boolean freeWorker) {
            return locked(() -> {
                leave(timedOut);
                return freeWorker ? assign(this) : null;
            });
        }

        /** The ack of {@code job} was recorded: it leaves (not a newer claim of its id). */
        void acked(StoredJob job) {
            locked(() -> {
                Execution execution = held.get(job.id());
                if (execution != null && execution.job == job) {
                    leave(execution);
                }
            });
        }

        /**
         * The outcome or ack of {@code job} was not recorded (its reply was lost): it leaves, and the
         * store may hold jobs for this instance that it does not know of.
         */
        void lost(StoredJob job) {
            locked(() -> {
                unknown = true;
                acked(job);
            });
        }

        /** Something may have reached the store without this instance knowing (a claim whose reply was lost). */
        void unknown() {
            locked(() -> unknown = true);
        }

        /** Whether {@link #unknown()} (or {@link #lost}) was called since the last time this said so. */
        boolean takeUnknown() {
            return locked(() -> {
                boolean was = unknown;
                unknown = false;
                return was;
            });
        }

        /** Takes every job waiting in the buffer out (to hand them back to the store): they leave, and their room is freed. */
        List<Execution> drain() {
            return locked(() -> {
                List<Execution> drained = new ArrayList<>(waiting);
                waiting.clear();
                drained.forEach(this::leave);
                freeRoom(drained.size());
                return drained;
            });
        }

        /** The ids of the jobs held: running, waiting in the buffer, or with their ack pending. */
        List<String> ids() {
            return locked(() -> List.copyOf(held.keySet()));
        }

        int size() {
            return locked(held::size);
        }

        /** How many jobs wait in the buffer. */
        int waiting() {
            return locked(waiting::size);
        }

        /** Interrupts the handlers still running (shutdown). */
        void interruptAll() {
            List<Execution> running = locked(() -> List.copyOf(held.values()));
            running.forEach(Execution::interruptHandler);
        }

        /** Waits until no job is held; returns false if some still are after {@code timeout}. */
        boolean awaitEmpty(Duration timeout) {
            lock.lock();
            try {
                long left = timeout.toNanos();
                while (!held.isEmpty()) {
                    if (left <= 0) {
                        return false;
                    }
                    left = emptied.awaitNanos(left);
                }
                return true;
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return held.isEmpty();
            }
            finally {
                lock.unlock();
            }
        }

        /** The oldest waiting job, its room freed; null when none waits. Under the lock. */
        private Execution takeWaiting() {
            Execution next = waiting.poll();
            if (next != null) {
                freeRoom(1);
            }
            return next;
        }

        private void freeRoom(int count) {
            if (count > 0) {
                room += count;
                roomMade.signalAll();
            }
        }

        private void leave(Execution execution) {
            if (held.remove(execution.job.id(), execution) && held.isEmpty()) {
                emptied.signalAll();
            }
        }
    }
}
