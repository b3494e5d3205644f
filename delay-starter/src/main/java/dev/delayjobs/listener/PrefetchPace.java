package dev.delayjobs.listener;

import java.util.concurrent.atomic.AtomicLong;

/**
 * How many jobs one partition's buffer should hold: a fixed number when {@code prefetch} is set,
 * else about what its workers start in {@value #HORIZON_MILLIS} ms at their recent pace. Fast
 * handlers then get a buffer deep enough to keep the workers fed through a claim's round trip, and
 * slow ones (fewer than 1000 / {@value #HORIZON_MILLIS} = 20 jobs a second) none: a job never waits
 * long in a buffer while another instance might be idle.
 */
final class PrefetchPace {

    /** How much of the workers' recent work the buffer holds, in ms of their pace. */
    static final long HORIZON_MILLIS = 50;
    /** How often the pace is measured again; each measure weighs half. */
    private static final long SAMPLE_NANOS = 100_000_000L;

    private final int fixed;
    private final int most;
    private final AtomicLong starts = new AtomicLong();
    // the claimer thread's own
    private long sampledAt = System.nanoTime();
    private long startsSampled;
    private double startsPerSecond;

    private PrefetchPace(int fixed, int most) {
        this.fixed = fixed;
        this.most = most;
    }

    /** Always {@code jobs}. */
    static PrefetchPace fixed(int jobs) {
        return new PrefetchPace(jobs, jobs);
    }

    /** Follows the workers' pace, up to {@code most} jobs. */
    static PrefetchPace adaptive(int most) {
        return new PrefetchPace(-1, most);
    }

    /** The most jobs the buffer may ever hold. */
    int most() {
        return most;
    }

    /** A worker of the partition started a job. */
    void started() {
        if (fixed < 0) {
            starts.incrementAndGet();
        }
    }

    /** How many jobs the buffer should hold now (claimer thread only). */
    int target() {
        if (fixed >= 0) {
            return fixed;
        }
        long now = System.nanoTime();
        if (now - sampledAt >= SAMPLE_NANOS) {
            long count = starts.get();
            double measured = (count - startsSampled) * 1e9 / (now - sampledAt);
            startsPerSecond = (startsPerSecond + measured) / 2;
            sampledAt = now;
            startsSampled = count;
        }
        return (int) Math.min(most, startsPerSecond * HORIZON_MILLIS / 1000);
    }
}
