package dev.delayjobs.benchmark;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a consumer JVM handled: job number, due time (epoch ms) and the moment the handler started
 * (epoch us), kept in preallocated arrays so that recording costs a handler next to nothing; written
 * to a file once the orchestrator asks, one {@code n due handled} line per delivery.
 */
final class Deliveries {

    private static int[] numbers = new int[0];
    private static long[] dues = new long[0];
    private static long[] handled = new long[0];
    private static final AtomicInteger COUNT = new AtomicInteger();
    // incremented after a slot is filled: reading it makes the filled slots visible
    private static final AtomicInteger WRITTEN = new AtomicInteger();

    private Deliveries() {
    }

    static synchronized void allocate(int capacity) {
        numbers = new int[capacity];
        dues = new long[capacity];
        handled = new long[capacity];
        COUNT.set(0);
        WRITTEN.set(0);
    }

    /** A handler starts job {@code n}, due at {@code dueEpochMs}. */
    static void record(int n, long dueEpochMs) {
        Instant now = Instant.now();
        long nowMicros = now.getEpochSecond() * 1_000_000L + now.getNano() / 1000;
        int i = COUNT.getAndIncrement();
        if (i < numbers.length) {
            numbers[i] = n;
            dues[i] = dueEpochMs;
            handled[i] = nowMicros;
        }
        WRITTEN.incrementAndGet();
    }

    static int count() {
        return WRITTEN.get();
    }

    /** Writes the deliveries so far; more than the capacity are counted, not written (the first line says how many). */
    static void write(Path file) throws IOException {
        int count = WRITTEN.get();
        int kept = Math.min(count, numbers.length);
        try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.US_ASCII)) {
            out.write("# " + count + "\n");
            for (int i = 0; i < kept; i++) {
                out.write(numbers[i] + " " + dues[i] + " " + handled[i] + "\n");
            }
        }
    }

    /** One line of a deliveries file: the job's number from the burst's first, its due time (epoch ms), its start (epoch us). */
    interface Line {
        void accept(int n, long dueEpochMs, long handledMicros);
    }

    /**
     * Reads the deliveries of the jobs numbered from {@code firstNumber} (a burst of its own: up to
     * {@link SeparateProducer#WARM_UP_NUMBERS} of them) from {@code file}; returns the count its first
     * line gives.
     */
    static int read(Path file, int firstNumber, Line line) throws IOException {
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.US_ASCII)) {
            int count = Integer.parseInt(in.readLine().substring(2).trim());
            String text;
            while ((text = in.readLine()) != null) {
                String[] parts = text.split(" ");
                int n = Integer.parseInt(parts[0]) - firstNumber;
                if (n >= 0 && n < SeparateProducer.WARM_UP_NUMBERS) {
                    line.accept(n, Long.parseLong(parts[1]), Long.parseLong(parts[2]));
                }
            }
            return count;
        }
    }
}
