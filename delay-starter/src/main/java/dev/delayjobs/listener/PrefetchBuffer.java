package dev.delayjobs.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The jobs one claimer took ahead of its workers ({@code prefetch}), PREFETCHED in Redis: they wait
 * here, oldest first, for a free worker, which starts them without a round trip to Redis. The
 * claimer asks for as many jobs as there is room for under the {@link PrefetchPace}'s target; a
 * worker that finishes takes the next waiting job before it frees itself, and a freed worker goes to
 * a waiting job ({@link WorkerPermits#giveBack}).
 */
final class PrefetchBuffer {

    private final PrefetchPace pace;
    private final int capacity;
    private final WorkerPermits workers;
    /** Starts a job on a worker taken for it. */
    private final Consumer<Execution> start;
    private final ConcurrentLinkedQueue<Execution> waiting = new ConcurrentLinkedQueue<>();
    /** Room left: capacity minus the jobs waiting and those a claim in flight may bring. */
    private final Semaphore room;

    PrefetchBuffer(PrefetchPace pace, WorkerPermits workers, Consumer<Execution> start) {
        this.pace = pace;
        this.capacity = pace.most();
        this.workers = workers;
        this.start = start;
        this.room = new Semaphore(capacity);
    }

    /** The most jobs it may ever hold: 0 without prefetch. */
    int capacity() {
        return capacity;
    }

    /** How many jobs it should hold now (see {@link PrefetchPace}); claimer thread only. */
    int target() {
        return pace.target();
    }

    /** A worker of its partition started a job: the pace counts it. */
    void started() {
        pace.started();
    }

    /**
     * Waits up to {@code timeout} until fewer than {@code target} jobs wait here, then takes all the
     * room up to {@code target}; returns how much (0 when none was made in time).
     */
    int awaitRoom(Duration timeout, int target) throws InterruptedException {
        // the room beyond the target is held back while the rest is taken
        int beyond = capacity - target;
        if (!room.tryAcquire(beyond + 1, timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            return 0;
        }
        int taken = 1 + room.drainPermits();
        room.release(beyond);
        return taken;
    }

    /** Gives back room that {@link #awaitRoom} took and a claim did not fill. */
    void giveBackRoom(int count) {
        room.release(count);
    }

    /** Adds jobs a claim prefetched (in the room taken for them); those that find a free worker start now. */
    void add(List<Execution> jobs) {
        waiting.addAll(jobs);
        dispatch();
    }

    /** Starts waiting jobs while free workers are left. */
    void dispatch() {
        while (!waiting.isEmpty() && workers.takeFree(1) == 1) {
            Execution next = waiting.poll();
            if (next == null) {
                // taken by a worker meanwhile: this one is free again, maybe for another buffer's job
                workers.giveBack(1);
                return;
            }
            room.release();
            start.accept(next);
        }
    }

    /**
     * The next waiting job for a worker that finished one, which then keeps its worker for it; null
     * when none waits, and the worker is freed.
     */
    Execution nextOrFree() {
        Execution next = waiting.poll();
        if (next == null) {
            workers.giveBack(1);
            return null;
        }
        room.release();
        return next;
    }

    /** Takes every waiting job out (to hand them back to Redis); the room they used is freed. */
    List<Execution> drain() {
        List<Execution> drained = new ArrayList<>();
        Execution next;
        while ((next = waiting.poll()) != null) {
            drained.add(next);
        }
        room.release(drained.size());
        return drained;
    }
}
