package dev.delayjobs.fault;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.LongUnaryOperator;

/**
 * The handlers' own record of when each handler call started and ended, for rules about runs that
 * overlap in time (group-concurrency): a consumer process appends {@code S pid seq id startedAt dueAt}
 * as a call starts and {@code E pid seq endedAt} as it returns or throws (times in epoch ms, the
 * machine's clock, shared by every process). A call cut by a {@code kill -9} has no end line. Each
 * line is written as {@link LineFile} writes.
 */
final class RunLog {

    /** One handler call; {@code endedAt} is -1 when the call never ended (its JVM died). */
    record Run(String id, long pid, long seq, long startedAt, long dueAt, long endedAt) {

        boolean ended() {
            return endedAt >= 0;
        }
    }

    private RunLog() {
    }

    static Appender appender(Path file) {
        return new Appender(LineFile.appendingTo(file));
    }

    /** Appends the lines of one process. */
    static final class Appender {

        private final LineFile out;
        private final long pid = ProcessHandle.current().pid();
        private final AtomicLong seq = new AtomicLong();

        private Appender(LineFile out) {
            this.out = out;
        }

        /** A call starts; returns its number, for {@link #ended}. */
        long started(String id, long startedAt, long dueAt) {
            long n = seq.incrementAndGet();
            out.write("S " + pid + " " + n + " " + id + " " + startedAt + " " + dueAt);
            return n;
        }

        void ended(long n) {
            out.write("E " + pid + " " + n + " " + System.currentTimeMillis());
        }
    }

    /** Every call in the given files, its end joined to its start (a file not written yet counts as empty). */
    static List<Run> read(Collection<Path> files) {
        Map<String, String[]> starts = new LinkedHashMap<>();
        Map<String, Long> ends = new HashMap<>();
        for (String[] f : LineFile.fields(files)) {
            if (f[0].equals("S") && f.length == 6) {
                starts.put(f[1] + "/" + f[2], f);
            }
            else if (f[0].equals("E") && f.length == 4) {
                ends.put(f[1] + "/" + f[2], Long.parseLong(f[3]));
            }
        }
        List<Run> runs = new ArrayList<>();
        starts.forEach((key, f) -> runs.add(new Run(f[3], Long.parseLong(f[1]), Long.parseLong(f[2]),
                Long.parseLong(f[4]), Long.parseLong(f[5]), ends.getOrDefault(key, -1L))));
        return runs;
    }

    /**
     * The pairs of runs of one group that overlapped in time, as text (empty when none). A run's span
     * is [start, end]; one that never ended lasts until its process died ({@code diedAt} of its pid;
     * a run with no end whose process did not die is reported too). Runs that merely touch (one ends
     * in the millisecond the next starts) do not overlap: the next job's claim follows the ack that
     * comes after the end line.
     */
    static List<String> overlaps(List<Run> runs, Function<String, String> groupOf, LongUnaryOperator diedAt) {
        Map<String, List<Run>> byGroup = new HashMap<>();
        List<String> found = new ArrayList<>();
        for (Run run : runs) {
            String group = groupOf.apply(run.id());
            if (group != null) {
                byGroup.computeIfAbsent(group, g -> new ArrayList<>()).add(run);
            }
        }
        byGroup.forEach((group, list) -> {
            list.sort((a, b) -> Long.compare(a.startedAt(), b.startedAt()));
            // sorted by start: each run is compared with every earlier one that had not ended by its start
            for (int i = 0; i < list.size(); i++) {
                Run later = list.get(i);
                if (endOf(later, diedAt) < 0) {
                    found.add("UNENDED " + later + " of group " + group + ": no end line, and its process did not die");
                }
                for (int j = 0; j < i; j++) {
                    Run earlier = list.get(j);
                    long end = endOf(earlier, diedAt);
                    if (end >= 0 && later.startedAt() < end) {
                        found.add("OVERLAP in group " + group + ": " + earlier + " until " + end + " and " + later);
                    }
                }
            }
        });
        return found;
    }

    private static long endOf(Run run, LongUnaryOperator diedAt) {
        return run.ended() ? run.endedAt() : diedAt.applyAsLong(run.pid());
    }
}
