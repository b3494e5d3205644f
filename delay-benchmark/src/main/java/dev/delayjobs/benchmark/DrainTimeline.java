package dev.delayjobs.benchmark;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.StringJoiner;
import java.util.stream.LongStream;

/**
 * How a burst drained, from a consumer's {@link Deliveries} file: when the first handler started
 * after the due time, when a tenth, half, nine tenths and all of the jobs had started, and the
 * starts per {@value #WINDOW_MS} ms window from the due time. Shows whether a slow drain is a late
 * start (nothing for the first windows), a slow climb (the JIT) or a slow steady rate.
 */
final class DrainTimeline {

    static final int WINDOW_MS = 50;

    private DrainTimeline() {
    }

    /** One line for the jobs numbered from {@code firstNumber} (up to {@link SeparateProducer#WARM_UP_NUMBERS} of them). */
    static String of(Path file, int firstNumber) throws IOException {
        LongStream.Builder handled = LongStream.builder();
        long[] due = { Long.MAX_VALUE };
        Deliveries.read(file, firstNumber, (n, dueEpochMs, handledMicros) -> {
            due[0] = Math.min(due[0], dueEpochMs);
            handled.add(handledMicros);
        });
        long[] sinceDueMicros = handled.build().map(h -> h - due[0] * 1000).sorted().toArray();
        int count = sinceDueMicros.length;
        if (count == 0) {
            return "no job started";
        }
        int windows = (int) Math.max(1, sinceDueMicros[count - 1] / 1000 / WINDOW_MS + 1);
        int[] perWindow = new int[windows];
        for (long micros : sinceDueMicros) {
            perWindow[(int) Math.max(0, micros / 1000 / WINDOW_MS)]++;
        }
        StringJoiner rates = new StringJoiner(" ");
        Arrays.stream(perWindow).forEach(n -> rates.add(Integer.toString(n)));
        return String.format(Locale.ROOT, "first start +%.0f ms, 10%% +%.0f, 50%% +%.0f, 90%% +%.0f, all +%.0f; starts per %d ms: %s",
                sinceDueMicros[0] / 1000.0, at(sinceDueMicros, 0.1), at(sinceDueMicros, 0.5), at(sinceDueMicros, 0.9),
                sinceDueMicros[count - 1] / 1000.0, WINDOW_MS, rates);
    }

    private static double at(long[] sorted, double share) {
        return sorted[Math.max(0, (int) Math.ceil(share * sorted.length) - 1)] / 1000.0;
    }
}
