package dev.delayjobs.benchmark;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How several processes on this machine shared its CPUs over a stretch of a run: per process, CPU
 * and the time its threads waited for a CPU ({@link ThreadTimes}), and its busiest thread groups.
 * Threads that start and end inside the stretch are not seen.
 */
final class ProcessTimes {

    private final List<String> names;
    private final List<Long> pids;
    private final List<Map<String, ThreadTimes.Group>> before = new ArrayList<>();
    private final long startNanos = System.nanoTime();

    ProcessTimes(List<String> names, List<Long> pids) {
        this.names = names;
        this.pids = pids;
        for (long pid : pids) {
            before.add(ThreadTimes.of(pid));
        }
    }

    /** One line: per process, ms on CPU and ms waiting for one, then its three busiest thread groups (ms on CPU). */
    String finish(long jobs) {
        return finish(jobs, 3);
    }

    /** As {@link #finish(long)}, with the {@code groups} busiest thread groups of each process. */
    String finish(long jobs, int groups) {
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "%.2f s, %d jobs", seconds, jobs));
        for (int i = 0; i < pids.size(); i++) {
            Map<String, ThreadTimes.Group> delta = ThreadTimes.delta(before.get(i), ThreadTimes.of(pids.get(i)));
            long cpu = delta.values().stream().mapToLong(ThreadTimes.Group::cpuNs).sum();
            long wait = delta.values().stream().mapToLong(ThreadTimes.Group::waitNs).sum();
            out.append(String.format(Locale.ROOT, "; %s: CPU %.0f ms (%.1f us/job), waiting for a CPU %.0f ms", names.get(i),
                    cpu / 1e6, cpu / 1e3 / Math.max(1, jobs), wait / 1e6));
            delta.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue().cpuNs(), a.getValue().cpuNs())).limit(groups)
                    .forEach(e -> out.append(String.format(Locale.ROOT, ", %s %.0f ms", e.getKey().strip(), e.getValue().cpuNs() / 1e6)));
        }
        return out.toString();
    }
}
