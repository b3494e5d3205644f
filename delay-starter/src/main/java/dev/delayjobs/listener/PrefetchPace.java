package dev.delayjobs.listener;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * How many jobs one partition's buffer should hold: a fixed number when {@code prefetch} is set,
 * else about what its workers start in {@value #HORIZON_MILLIS} ms at their recent pace. Fast
 * handlers then get a buffer deep enough to keep the workers fed through a claim's round trip, and
 * slow ones (fewer than 1000 / {@value #HORIZON_MILLIS} = 20 jobs a second) none: a job never waits
 * long in a buffer while another instance might be idle.
 *
 * <p>The pace is measured over {@value #SAMPLE_NANOS} ns windows, and, while claims come back full
 * (a backlog: a burst of due jobs), also between those claims: a burst then gets its buffer after
 * {@value #BACKLOG_MEASURE_NANOS} ns of full claims instead of after a window or two (which an idle
 * consumer starts from zero), and the claims that take it carry more jobs each.
 */
final class PrefetchPace {

    /** How much of the workers' recent work the buffer holds, in ms of their pace. */
    static final long HORIZON_MILLIS = 50;
    /** How often the pace is measured again; each measure weighs half. */
    private static final long SAMPLE_NANOS = 100_000_000L;
    /** The shortest stretch of full claims whose starts measure the pace during a backlog. */
    static final long BACKLOG_MEASURE_NANOS = 10_000_000L;

    private final int fixed;
    private final int most;
    private final AtomicLong starts = new AtomicLong();
    private final LongSupplier nanoTime;
    // the claimer thread's own
    private long sampledAt;
    private long startsSampled;
    private double startsPerSecond;
    /** When the stretch of full claims being measured began; 0: none is. */
    private long backlogSince;
    private long startsAtBacklog;
    /** The target the last stretch of full claims measured; 0 once a claim came back short. */
    private int backlogTarget;

    private PrefetchPace(int fixed, int most, LongSupplier nanoTime) {
        this.fixed = fixed;
        this.most = most;
        this.nanoTime = nanoTime;
        this.sampledAt = nanoTime.getAsLong();
    }

    /** Always {@code jobs}. */
    static PrefetchPace fixed(int jobs) {
        return new PrefetchPace(jobs, jobs, System::nanoTime);
    }

    /** Follows the workers' pace, up to {@code most} jobs. */
    static PrefetchPace adaptive(int most) {
        return adaptive(most, System::nanoTime);
    }

    /** As {@link #adaptive(int)}, on the clock {@code nanoTime} (tests). */
    static PrefetchPace adaptive(int most, LongSupplier nanoTime) {
        return new PrefetchPace(-1, most, nanoTime);
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

    /**
     * A claim that asked for {@code asked} jobs came back with them all, or said ready held more it
     * did not reach ({@code full}), or it came back short (claimer thread only). The starts during a
     * stretch of full claims of at least {@value #BACKLOG_MEASURE_NANOS} ns measure the pace; a short
     * claim (the backlog is gone) leaves the target to the windows' pace again.
     */
    void claimed(int asked, boolean full) {
        if (fixed >= 0) {
            return;
        }
        long now = nanoTime.getAsLong();
        if (asked == 0 || !full) {
            backlogSince = 0;
            backlogTarget = 0;
            return;
        }
        long count = starts.get();
        if (backlogSince == 0) {
            backlogSince = now;
            startsAtBacklog = count;
        }
        else if (now - backlogSince >= BACKLOG_MEASURE_NANOS) {
            double perSecond = (count - startsAtBacklog) * 1e9 / (now - backlogSince);
            backlogTarget = (int) Math.min(most, perSecond * HORIZON_MILLIS / 1000);
            backlogSince = now;
            startsAtBacklog = count;
        }
    }

    /** How many jobs the buffer should hold now (claimer thread only). */
    int target() {
        if (fixed >= 0) {
            return fixed;
        }
        long now = nanoTime.getAsLong();
        if (now - sampledAt >= SAMPLE_NANOS) {
            long count = starts.get();
            double measured = (count - startsSampled) * 1e9 / (now - sampledAt);
            startsPerSecond = (startsPerSecond + measured) / 2;
            sampledAt = now;
            startsSampled = count;
        }
        return (int) Math.max(backlogTarget, Math.min(most, startsPerSecond * HORIZON_MILLIS / 1000));
    }
}
