package dev.delayjobs.benchmark;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where a process's threads spent a phase, from Linux's {@code /proc/<pid>/task/<tid>/schedstat}
 * (ns on a CPU, ns runnable but waiting for one) and {@code status} (context switches), summed
 * over threads of the same name with their numbers left out ({@code redisson-netty-2-3} and
 * {@code redisson-netty-2-4} are one group). The wait for a CPU is what two cores shared by Redis and
 * the JVMs cost each thread. Empty where {@code /proc} is not there.
 */
final class ThreadTimes {

    /** Per thread group: ns on CPU, ns waiting for a CPU, voluntary and involuntary context switches, threads seen. */
    record Group(long cpuNs, long waitNs, long voluntary, long involuntary, int threads) {

        Group plus(Group o) {
            return new Group(cpuNs + o.cpuNs, waitNs + o.waitNs, voluntary + o.voluntary, involuntary + o.involuntary,
                    threads + o.threads);
        }

        Group minus(Group o) {
            return new Group(cpuNs - o.cpuNs, waitNs - o.waitNs, voluntary - o.voluntary, involuntary - o.involuntary,
                    threads);
        }
    }

    private ThreadTimes() {
    }

    /** The threads of process {@code pid} now, by group; threads that ended since are not in it (their time is lost). */
    static Map<String, Group> of(long pid) {
        Map<String, Group> out = new TreeMap<>();
        Path tasks = Path.of("/proc", Long.toString(pid), "task");
        if (!Files.isDirectory(tasks)) {
            return out;
        }
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(tasks)) {
            for (Path task : dir) {
                try {
                    String comm = Files.readString(task.resolve("comm")).strip();
                    String[] sched = Files.readString(task.resolve("schedstat")).strip().split(" ");
                    long voluntary = 0;
                    long involuntary = 0;
                    for (String line : Files.readAllLines(task.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:")) {
                            voluntary = Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
                        }
                        else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
                            involuntary = Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
                        }
                    }
                    Group g = new Group(Long.parseLong(sched[0]), Long.parseLong(sched[1]), voluntary, involuntary, 1);
                    out.merge(group(comm), g, Group::plus);
                }
                catch (IOException | RuntimeException ended) {
                    // the thread ended while we read it
                }
            }
        }
        catch (IOException ex) {
            return out;
        }
        return out;
    }

    /** CPU ns of the whole process so far, threads that ended included ({@code /proc/<pid>/stat}, 10 ms ticks); -1 without /proc. */
    static long processCpuNs(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // the fields after the command, which is in parentheses and may hold spaces
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
            return ticks * 10_000_000L;
        }
        catch (IOException | RuntimeException ex) {
            return -1;
        }
    }

    /** {@code redisson-netty-2-3} -> {@code redisson-netty-#-#}; {@code pool-3-thread-1} -> {@code pool-#-thread-#}. */
    static String group(String comm) {
        return comm.replaceAll("[0-9]+", "#");
    }

    /** after - before, per group; groups whose threads all started during the phase count from zero. */
    static Map<String, Group> delta(Map<String, Group> before, Map<String, Group> after) {
        Map<String, Group> out = new TreeMap<>();
        after.forEach((name, g) -> {
            Group b = before.get(name);
            out.put(name, b == null ? g : g.minus(b));
        });
        return out;
    }
}
