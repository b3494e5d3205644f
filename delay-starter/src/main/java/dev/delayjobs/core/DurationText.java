package dev.delayjobs.core;

import java.time.Duration;

/**
 * Durations in the form people write them in properties ({@code 500ms}, {@code 30s}, {@code 5m}):
 * the largest unit that holds the value exactly, where {@link Duration#toString()} would print
 * {@code PT0.5S}.
 */
public final class DurationText {

    private static final long[] UNIT_NANOS = { 86_400_000_000_000L, 3_600_000_000_000L, 60_000_000_000L,
            1_000_000_000L, 1_000_000L, 1_000L, 1L };
    private static final String[] UNIT_NAMES = { "d", "h", "m", "s", "ms", "us", "ns" };

    private DurationText() {
    }

    /** {@code 500ms} for half a second, {@code 90s}, {@code 2h}; {@code none} for null. */
    public static String of(Duration duration) {
        if (duration == null) {
            return "none";
        }
        if (duration.isZero()) {
            return "0ms";
        }
        if (duration.abs().compareTo(Duration.ofDays(36_500)) > 0) {
            return duration.toDays() + "d";
        }
        long nanos = duration.toNanos();
        for (int i = 0; i < UNIT_NANOS.length; i++) {
            if (nanos % UNIT_NANOS[i] == 0) {
                return nanos / UNIT_NANOS[i] + UNIT_NAMES[i];
            }
        }
        return nanos + "ns";
    }
}
