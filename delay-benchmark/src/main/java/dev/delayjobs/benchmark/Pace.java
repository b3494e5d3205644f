package dev.delayjobs.benchmark;

import java.util.concurrent.locks.LockSupport;

/** Sleeping without checked exceptions, and fixed-rate pacing on absolute time. */
final class Pace {

    private Pace() {
    }

    static void sleepMs(long ms) {
        LockSupport.parkNanos(ms * 1_000_000L);
    }

    /** How many of {@code total} jobs, published at {@code rate} per second from {@code startNanos}, are due by now. */
    static int dueBy(long startNanos, double rate, int total) {
        double elapsed = (System.nanoTime() - startNanos) / 1e9;
        return (int) Math.min(total, Math.floor(elapsed * rate) + 1);
    }
}
