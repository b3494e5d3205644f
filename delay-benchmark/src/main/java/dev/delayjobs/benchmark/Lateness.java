package dev.delayjobs.benchmark;

import java.time.Instant;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Lateness of every delivered job of the current phase: the moment a handler starts, minus the
 * job's due time, in microseconds. Both engines' consumers call {@link #record}.
 */
final class Lateness {

    private static volatile long[] samples = new long[0];
    private static volatile long[] dues = new long[0];
    private static final AtomicInteger COUNT = new AtomicInteger();
    private static final AtomicInteger EARLY = new AtomicInteger();
    private static volatile long lastAt;

    private Lateness() {
    }

    /** Starts a phase expecting up to {@code capacity} deliveries. */
    static synchronized void reset(int capacity) {
        samples = new long[capacity];
        dues = new long[capacity];
        COUNT.set(0);
        EARLY.set(0);
        lastAt = 0;
    }

    /** A handler starts a job that was due at {@code dueEpochMs}. */
    static void record(long dueEpochMs) {
        Instant now = Instant.now();
        long nowMicros = now.getEpochSecond() * 1_000_000L + now.getNano() / 1000;
        long late = nowMicros - dueEpochMs * 1000;
        if (late < 0) {
            EARLY.incrementAndGet();
        }
        int i = COUNT.getAndIncrement();
        long[] s = samples;
        if (i < s.length) {
            s[i] = late;
            dues[i] = dueEpochMs;
        }
        lastAt = System.nanoTime();
    }

    static int count() {
        return COUNT.get();
    }

    static int early() {
        return EARLY.get();
    }

    /** System.nanoTime() of the last delivery, 0 when none. */
    static long lastAt() {
        return lastAt;
    }

    /** Waits until {@code expected} jobs were delivered or {@code timeoutMs} passed; returns whether all came. */
    static boolean await(int expected, long timeoutMs) {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (COUNT.get() < expected) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Pace.sleepMs(5);
        }
        return true;
    }

    /** The {@code n} latest deliveries of the phase as "due ms (mod 10 s) -> lateness ms", for profiling. */
    static String worst(int n) {
        int count = Math.min(COUNT.get(), samples.length);
        Integer[] order = new Integer[count];
        for (int i = 0; i < count; i++) {
            order[i] = i;
        }
        long[] s = samples;
        Arrays.sort(order, (a, b) -> Long.compare(s[b], s[a]));
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < Math.min(n, count); i++) {
            int k = order[i];
            out.append(String.format("%d:%.1f ", dues[k] % 10_000, s[k] / 1000.0));
        }
        return out.toString();
    }

    static Summary summary() {
        int n = Math.min(COUNT.get(), samples.length);
        long[] sorted = Arrays.copyOf(samples, n);
        Arrays.sort(sorted);
        if (n == 0) {
            return new Summary(0, Double.NaN, Double.NaN, Double.NaN, EARLY.get());
        }
        return new Summary(n, at(sorted, 0.50) / 1000.0, at(sorted, 0.99) / 1000.0, sorted[n - 1] / 1000.0, EARLY.get());
    }

    private static long at(long[] sorted, double q) {
        int index = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    /** Lateness in ms. */
    record Summary(int count, double p50, double p99, double max, int early) {
    }
}
