package dev.delayjobs.benchmark;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** The scenarios' jobs (their delays, drawn with fixed seeds) and how they are sent: slices of them from threads at once. */
final class Workload {

    private Workload() {
    }

    /** {@code count} delays drawn with {@code seed}, uniform in {@code from}..{@code from + 1000} ms. */
    static long[] delays(long seed, int count, int from) {
        Random random = new Random(seed);
        long[] delays = new long[count];
        for (int i = 0; i < count; i++) {
            delays[i] = from + random.nextInt(1001);
        }
        return delays;
    }

    /** {@code n} delays of 1 to 2 h, at random. */
    static long[] farFuture(Random random, int n) {
        long[] delays = new long[n];
        for (int i = 0; i < n; i++) {
            delays[i] = 3_600_000L + random.nextInt(3_600_000);
        }
        return delays;
    }

    private interface Slice {
        void run(int from, int to) throws Exception;
    }

    /** Splits [0, total) into {@code threads} slices run at once; rethrows the first failure. */
    private static void parallel(int threads, int total, Slice slice) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> futures = new ArrayList<>();
            int per = (total + threads - 1) / threads;
            for (int t = 0; t < threads; t++) {
                int from = t * per;
                int to = Math.min(total, from + per);
                futures.add(pool.submit(() -> {
                    slice.run(from, to);
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
        }
        finally {
            pool.shutdownNow();
        }
    }

    /** Each of {@code delays} published with its own call ({@code publishOne}), the array split over {@code threads} threads. */
    static void singles(Engine engine, long[] delays, int threads) throws Exception {
        parallel(threads, delays.length, (from, to) -> {
            for (int i = from; i < to; i++) {
                engine.publishOne(delays[i]);
            }
        });
    }

    /** {@code delays} published in calls of 1,000 ({@code publishMany}), the array split over {@code threads} threads. */
    static void batches(Engine engine, long[] delays, int threads) throws Exception {
        parallel(threads, delays.length, (from, to) -> {
            for (int i = from; i < to; i += 1000) {
                engine.publishMany(Arrays.copyOfRange(delays, i, Math.min(to, i + 1000)));
            }
        });
    }
}
