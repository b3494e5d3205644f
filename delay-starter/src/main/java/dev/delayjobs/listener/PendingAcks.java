package dev.delayjobs.listener;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The cap on one queue's handled-but-unacked jobs in this instance, shared by the {@link AckBatcher}s
 * of its partitions: a job takes a place when its handler returns and gives it back once its ack is
 * recorded (or reported lost). While Redis is slow or down the places run out and the workers wait,
 * so a crash then re-delivers at most {@link #MAX} jobs of the queue whose handlers already ran,
 * however many partitions it has.
 */
final class PendingAcks {

    /** Places per queue: the most handled jobs of one queue waiting for their ack, in flight included. */
    static final int MAX = 10_000;

    private final Semaphore places;

    PendingAcks() {
        this(MAX);
    }

    PendingAcks(int max) {
        this.places = new Semaphore(max);
    }

    /** Takes a place, waiting up to {@code timeoutMs}; returns whether one was taken. */
    boolean take(long timeoutMs) throws InterruptedException {
        return places.tryAcquire(timeoutMs, TimeUnit.MILLISECONDS);
    }

    void giveBack(int count) {
        places.release(count);
    }

    /** Places free now. */
    int free() {
        return places.availablePermits();
    }
}
