package dev.delayjobs.fault;

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
 * {@code id attempt startedAt dueAt endedAt pid}, times in epoch ms, written as {@link LineFile}
 * writes: in the file the moment the handler returns, whole after a {@code kill -9}.
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
        return new Appender(LineFile.appendingTo(file));
    }

    /** Appends the lines of one process. */
    static final class Appender {

        private final LineFile out;
        private final long pid = ProcessHandle.current().pid();

        private Appender(LineFile out) {
            this.out = out;
        }

        void append(DelayedJob<?> job, long startedAt, long endedAt) {
            append(job.id(), job, startedAt, endedAt);
        }

        /** A line under {@code id} rather than the job's id (jobs that come from elements get ids of their own). */
        void append(String id, DelayedJob<?> job, long startedAt, long endedAt) {
            out.write(id + " " + job.attempt() + " " + startedAt + " " + job.dueAt().toEpochMilli() + " " + endedAt
                    + " " + pid);
        }
    }

    /** Every complete line of the given files (a file not written yet counts as empty). */
    static List<Handled> read(Collection<Path> files) {
        List<Handled> all = new ArrayList<>();
        for (String[] f : LineFile.fields(files)) {
            if (f.length == 6) {
                all.add(new Handled(f[0], Integer.parseInt(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]),
                        Long.parseLong(f[4]), Long.parseLong(f[5])));
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
