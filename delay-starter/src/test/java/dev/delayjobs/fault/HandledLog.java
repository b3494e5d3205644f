package dev.delayjobs.fault;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import dev.delayjobs.DelayedJob;

/**
 * The file a consumer process appends one line to per handled job:
 * {@code id attempt startedAt dueAt endedAt pid}, times in epoch ms. Each line is one
 * {@code write} call on a file opened for appending, so it is in the file (the kernel's page cache)
 * the moment the handler returns: it survives a {@code kill -9} of the consumer, and lines of
 * concurrent workers and processes never interleave.
 */
final class HandledLog {

    /** One line: a handler call that returned. */
    record Handled(String id, int attempt, long startedAt, long dueAt, long endedAt, long pid) {

        /** How long after its due time the handler started (negative: handed out early). */
        long lateness() {
            return startedAt - dueAt;
        }
    }

    private HandledLog() {
    }

    static Appender appender(Path file) {
        try {
            return new Appender(new FileOutputStream(file.toFile(), true));
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** Appends the lines of one process. */
    static final class Appender {

        private final FileOutputStream out;
        private final long pid = ProcessHandle.current().pid();

        private Appender(FileOutputStream out) {
            this.out = out;
        }

        synchronized void append(DelayedJob<?> job, long startedAt, long endedAt) {
            append(job.id(), job, startedAt, endedAt);
        }

        /** A line under {@code id} rather than the job's id (jobs that come from elements get ids of their own). */
        synchronized void append(String id, DelayedJob<?> job, long startedAt, long endedAt) {
            String line = id + " " + job.attempt() + " " + startedAt + " " + job.dueAt().toEpochMilli() + " " + endedAt
                    + " " + pid + "\n";
            try {
                out.write(line.getBytes(StandardCharsets.UTF_8));
            }
            catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        }
    }

    /** Every complete line of the given files (a file not written yet counts as empty). */
    static List<Handled> read(Collection<Path> files) {
        List<Handled> all = new ArrayList<>();
        for (Path file : files) {
            if (!Files.exists(file)) {
                continue;
            }
            try {
                for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                    String[] f = line.split(" ");
                    if (f.length == 6) {
                        all.add(new Handled(f[0], Integer.parseInt(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]),
                                Long.parseLong(f[4]), Long.parseLong(f[5])));
                    }
                }
            }
            catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        }
        return all;
    }

    /** How many times each id was handled. */
    static Map<String, Integer> counts(List<Handled> handled) {
        Map<String, Integer> counts = new HashMap<>();
        handled.forEach(h -> counts.merge(h.id(), 1, Integer::sum));
        return counts;
    }

    /** The ids handled more than once, sorted. */
    static Set<String> duplicated(List<Handled> handled) {
        return counts(handled).entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** The lines whose handler started before the job's due time. */
    static List<Handled> early(List<Handled> handled) {
        return handled.stream().filter(h -> h.lateness() < 0).toList();
    }
}
