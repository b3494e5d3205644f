package dev.delayjobs.redis;

import java.util.Map;
import java.util.TreeMap;

/**
 * How many waiting jobs (ready and delayed) are at each payload version, from a bounded read
 * (payload-versions.lua): at most {@link #MOST_JOBS} jobs and {@link #MOST_BYTES} record bytes per
 * partition and call.
 *
 * @param waiting the waiting jobs
 * @param read the jobs whose version was read; when below {@code waiting} each count is "at least"
 * @param byVersion jobs read per payload version (1 for a job published without one)
 */
public record PayloadVersionCounts(long waiting, long read, Map<Integer, Long> byVersion) {

    /** The most waiting jobs one call reads per partition. */
    public static final int MOST_JOBS = 1000;
    /** The most record bytes one call reads per partition (1 MiB): a record that would pass it is skipped. */
    public static final int MOST_BYTES = 1 << 20;

    public PayloadVersionCounts {
        byVersion = Map.copyOf(byVersion);
    }

    /** Whether every waiting job was read: the counts are exact (as of the read). */
    public boolean exact() {
        return read >= waiting;
    }

    /** The counts of two partitions together. */
    public PayloadVersionCounts plus(PayloadVersionCounts other) {
        Map<Integer, Long> sum = new TreeMap<>(byVersion);
        other.byVersion.forEach((version, count) -> sum.merge(version, count, Long::sum));
        return new PayloadVersionCounts(waiting + other.waiting, read + other.read, sum);
    }
}
