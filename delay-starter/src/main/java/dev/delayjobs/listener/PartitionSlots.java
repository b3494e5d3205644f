package dev.delayjobs.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Condition;

import dev.delayjobs.listener.QueueSlots.Reservation;
import dev.delayjobs.store.StoredJob;

/**
 * One partition's view of its queue's {@link QueueSlots}: the room of its prefetch buffer, the jobs
 * waiting there (each group's oldest first, the groups in turn: {@link WaitingJobs}), and the jobs
 * held (running, waiting, or with their ack pending),
 * with the queue's workers behind them. Every method runs under the queue's one lock; why that keeps
 * no job waiting while a worker is free is told in {@link QueueSlots}.
 */
final class PartitionSlots {

    private final QueueSlots queue;
    private final int capacity;
    /** The buffer's room: capacity minus the jobs waiting and the room reserved by a claim in flight. */
    private int room;
    private final WaitingJobs waiting = new WaitingJobs();
    private final Map<String, Execution> held = new HashMap<>();
    /** Whether this instance may hold jobs in the store that it does not know of. */
    private boolean unknown;
    private final Condition roomMade;
    private final Condition emptied;

    PartitionSlots(QueueSlots queue, int capacity) {
        this.queue = queue;
        this.capacity = capacity;
        this.room = capacity;
        this.roomMade = queue.lock.newCondition();
        this.emptied = queue.lock.newCondition();
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
        queue.lock.lock();
        try {
            if (target == 0) {
                return new Reservation(queue.awaitWorkers(), 0);
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
            return new Reservation(queue.takeWorkers(), roomTaken);
        }
        finally {
            queue.lock.unlock();
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
        return queue.locked(() -> {
            claimed.forEach(execution -> held.put(execution.job.id(), execution));
            List<Execution> now = new ArrayList<>(claimed.subList(0, started));
            List<Execution> prefetched = claimed.subList(started, claimed.size());
            waiting.addAll(prefetched);
            freeRoom(reservation.room() - prefetched.size());
            for (int i = started; i < reservation.workers(); i++) {
                Execution next = queue.assign(this);
                if (next != null) {
                    now.add(next);
                }
            }
            // a worker freed while the claim was on its way takes a job that waits now
            while (!waiting.isEmpty() && queue.takeFreeWorker()) {
                now.add(takeWaiting());
            }
            return now;
        });
    }

    /**
     * The job of {@code done} ended on the caller's worker: it leaves the held jobs unless its ack
     * is pending (then {@link #acked} or {@link #lost} lets it go). Returns the next job the worker
     * runs (this partition's next waiting job, else another partition's), or null when the
     * worker is freed.
     */
    Execution finished(Execution done) {
        return queue.locked(() -> {
            if (!done.ackPending()) {
                leave(done);
            }
            return queue.assign(this);
        });
    }

    /**
     * A worker that has no job (a handler thread that kept its worker past its timeout and
     * returned, say): returns the next job for it, or null when it is freed.
     */
    Execution workerIdle() {
        return queue.locked(() -> queue.assign(this));
    }

    /**
     * The handler of {@code timedOut} ran past its timeout and its failed attempt is recorded: the
     * job leaves, while its thread may run on. With {@code freeWorker} its worker passes to the
     * caller, which gets the next job for it (or null: the worker is freed); without, the stuck
     * thread keeps the worker until it returns ({@link #workerIdle}).
     */
    Execution abandoned(Execution timedOut, boolean freeWorker) {
        return queue.locked(() -> {
            leave(timedOut);
            return freeWorker ? queue.assign(this) : null;
        });
    }

    /** The ack of {@code job} was recorded: it leaves (not a newer claim of its id). */
    void acked(StoredJob job) {
        queue.locked(() -> {
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
        queue.locked(() -> {
            unknown = true;
            acked(job);
        });
    }

    /** Something may have reached the store without this instance knowing (a claim whose reply was lost). */
    void unknown() {
        queue.locked(() -> unknown = true);
    }

    /** Whether {@link #unknown()} (or {@link #lost}) was called since the last time this said so. */
    boolean takeUnknown() {
        return queue.locked(() -> {
            boolean was = unknown;
            unknown = false;
            return was;
        });
    }

    /** Takes every job waiting in the buffer out (to hand them back to the store): they leave, and their room is freed. */
    List<Execution> drain() {
        return queue.locked(() -> {
            List<Execution> drained = waiting.drain();
            drained.forEach(this::leave);
            freeRoom(drained.size());
            return drained;
        });
    }

    /** The ids of the jobs held: running, waiting in the buffer, or with their ack pending. */
    List<String> ids() {
        return queue.locked(() -> List.copyOf(held.keySet()));
    }

    int size() {
        return queue.locked(held::size);
    }

    /** How many jobs wait in the buffer. */
    int waiting() {
        return queue.locked(waiting::size);
    }

    /** Interrupts the handlers still running (shutdown). */
    void interruptAll() {
        List<Execution> running = queue.locked(() -> List.copyOf(held.values()));
        running.forEach(Execution::interruptHandler);
    }

    /** Waits until no job is held; returns false if some still are after {@code timeout}. */
    boolean awaitEmpty(Duration timeout) {
        queue.lock.lock();
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
            queue.lock.unlock();
        }
    }

    /** The next waiting job in turn (see {@link WaitingJobs}), its room freed; null when none waits. Under the lock. */
    Execution takeWaiting() {
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
