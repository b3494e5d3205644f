package dev.delayjobs.benchmark;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;
import java.util.stream.LongStream;

/**
 * The figures of one measured run of one engine, from its consumer's {@link Deliveries} file and
 * its producer's report. Lateness is handler start minus due time, in ms.
 *
 * @param published jobs the producer published without an error
 * @param failed publish calls that threw
 * @param publishRate published jobs per second of publishing
 * @param delivered distinct jobs handled
 * @param duplicates deliveries beyond the first of a job
 * @param early deliveries before the due time
 * @param p99FirstSeconds lateness p99 of the jobs due in the first 3 s after the first due time (the cold consumer's start)
 * @param p99Later lateness p99 of the jobs due later
 * @param drainMs last handler start minus the first due time
 * @param gcMs the consumer JVM's GC time, whole life
 * @param jitMs the consumer JVM's JIT compilation time, whole life
 * @param startupMs the consumer JVM's start until its application was ready
 */
record RunFigures(int published, int failed, double publishRate, int delivered, int duplicates, int early,
        double p50, double p99, double max, double p99FirstSeconds, double p99Later, double drainMs,
        long gcMs, long jitMs, long startupMs) {

    int lost() {
        return published - delivered;
    }

    static RunFigures read(Path file, int published, int failed, double publishRate, long gcMs, long jitMs, long startupMs)
            throws IOException {
        return read(file, 0, published, failed, publishRate, gcMs, jitMs, startupMs);
    }

    /** The figures of the jobs numbered from {@code firstNumber} (a burst of its own: up to {@link SeparateProducer#WARM_UP_NUMBERS} of them). */
    static RunFigures read(Path file, int firstNumber, int published, int failed, double publishRate, long gcMs, long jitMs,
            long startupMs) throws IOException {
        LongStream.Builder dueTimes = LongStream.builder();
        LongStream.Builder starts = LongStream.builder();
        BitSet seen = new BitSet();
        Deliveries.read(file, firstNumber, (n, dueEpochMs, handledMicros) -> {
            dueTimes.add(dueEpochMs);
            starts.add(handledMicros);
            if (n < published + failed) {
                seen.set(n);
            }
        });
        long[] dues = dueTimes.build().toArray();
        long[] handled = starts.build().toArray();
        int lines = dues.length;
        int delivered = seen.cardinality();
        long[] lateness = new long[lines];
        for (int i = 0; i < lines; i++) {
            lateness[i] = handled[i] - dues[i] * 1000;
        }
        if (lines == 0) {
            return new RunFigures(published, failed, publishRate, 0, 0, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                    Double.NaN, Double.NaN, gcMs, jitMs, startupMs);
        }
        long firstDue = Arrays.stream(dues, 0, lines).min().getAsLong();
        long lastHandled = Arrays.stream(handled, 0, lines).max().getAsLong();
        int early = (int) Arrays.stream(lateness, 0, lines).filter(l -> l < 0).count();
        long[] first = new long[lines];
        long[] later = new long[lines];
        int firstCount = 0;
        int laterCount = 0;
        for (int i = 0; i < lines; i++) {
            if (dues[i] < firstDue + 3000) {
                first[firstCount++] = lateness[i];
            }
            else {
                later[laterCount++] = lateness[i];
            }
        }
        long[] sorted = Arrays.copyOf(lateness, lines);
        Arrays.sort(sorted);
        return new RunFigures(published, failed, publishRate, delivered, lines - delivered, early,
                quantile(sorted, 0.50), quantile(sorted, 0.99), sorted[lines - 1] / 1000.0,
                p99(first, firstCount), p99(later, laterCount), lastHandled / 1000.0 - firstDue, gcMs, jitMs, startupMs);
    }

    private static double p99(long[] values, int count) {
        if (count == 0) {
            return Double.NaN;
        }
        long[] sorted = Arrays.copyOf(values, count);
        Arrays.sort(sorted);
        return quantile(sorted, 0.99);
    }

    /** The nearest-rank quantile of sorted microseconds, in ms. */
    private static double quantile(long[] sorted, double q) {
        int index = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))] / 1000.0;
    }
}
