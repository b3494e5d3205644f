package dev.delayjobs.benchmark;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Where the time of a phase went ({@code --breakdown}): Redis's CPU split into the commands'
 * execution ({@code INFO commandstats}, per command: calls per job, µs per call, µs per job) and
 * the rest (reading, parsing, replying, the event loop, expiring keys); with {@code --script-times}
 * the scripts' execution split by script ({@link ScriptTimes}); and per process, the JVM's and the
 * server's threads by name: CPU per job and the time they waited for a CPU ({@link ThreadTimes}).
 * Printed under the phase's row.
 */
final class Breakdown {

    static boolean enabled;
    static boolean scriptTimes;

    private final RedisProbe probe;
    private final long redisPid;
    private final long jvmPid = ProcessHandle.current().pid();
    private final Map<String, ScriptTimes.Time> statsBefore;
    private final double[] cpuBefore;
    private final Map<String, ThreadTimes.Group> jvmBefore;
    private final Map<String, ThreadTimes.Group> redisBefore;
    private final long jvmCpuBefore;
    private final long nanosBefore = System.nanoTime();
    private final ScriptTimes scripts;

    private Breakdown(RedisProbe probe, String host, int port) {
        this.probe = probe;
        this.redisPid = probe.processId();
        this.statsBefore = probe.commandStats();
        this.cpuBefore = probe.cpuSysUser();
        this.jvmBefore = ThreadTimes.of(jvmPid);
        this.redisBefore = ThreadTimes.of(redisPid);
        this.jvmCpuBefore = ThreadTimes.processCpuNs(jvmPid);
        this.scripts = scriptTimes ? new ScriptTimes(host, port) : null;
    }

    /** A breakdown of the phase starting now, or null without {@code --breakdown}. */
    static Breakdown start(RedisProbe probe) {
        return enabled ? new Breakdown(probe, probe.host(), probe.port()) : null;
    }

    /** The breakdown of the phase, per job, as indented lines. */
    String finish(long jobs) {
        Map<String, ScriptTimes.Time> byScript = scripts == null ? null : scripts.finish();
        long missed = scripts == null ? 0 : scripts.missed();
        if (scripts != null) {
            scripts.close();
        }
        double seconds = (System.nanoTime() - nanosBefore) / 1e9;
        double[] cpu = probe.cpuSysUser();
        Map<String, ScriptTimes.Time> stats = probe.commandStats();
        Map<String, ThreadTimes.Group> jvm = ThreadTimes.delta(jvmBefore, ThreadTimes.of(jvmPid));
        Map<String, ThreadTimes.Group> redis = ThreadTimes.delta(redisBefore, ThreadTimes.of(redisPid));
        long jvmCpu = ThreadTimes.processCpuNs(jvmPid) - jvmCpuBefore;
        double perJob = Math.max(1, jobs);
        List<String> out = new ArrayList<>();

        double sys = (cpu[0] - cpuBefore[0]) * 1e6 / perJob;
        double user = (cpu[1] - cpuBefore[1]) * 1e6 / perJob;
        double topLevel = 0;
        List<String> commands = new ArrayList<>();
        for (Map.Entry<String, ScriptTimes.Time> e : RedisProbe.since(statsBefore, stats).entrySet()) {
            long calls = e.getValue().calls();
            long usec = e.getValue().usec();
            if (e.getKey().equals("info") || e.getKey().startsWith("slowlog") || e.getKey().startsWith("config")) {
                continue;
            }
            commands.add(String.format(Locale.ROOT, "      %-22s %7.3f calls/job %8.2f us/call %7.2f us/job", e.getKey(),
                    calls / perJob, usec / (double) calls, usec / perJob));
            if (e.getKey().startsWith("eval") || sentByClients(e.getKey())) {
                topLevel += usec / perJob;
            }
        }
        out.add(String.format(Locale.ROOT, "    Redis CPU %.2f us/job (user %.2f, sys %.2f); commands' execution %.2f us/job "
                + "(scripts and top-level commands), the rest %.2f us/job (I/O, parsing, replies, event loop, cron)",
                sys + user, user, sys, topLevel, sys + user - topLevel));
        out.add("    INFO commandstats (scripts' inner commands included, so they add up to more than the scripts):");
        out.addAll(commands);
        if (byScript != null) {
            out.add("    SLOWLOG at 0 us, by script (" + missed + " entries missed between drains):");
            byScript.forEach((kind, t) -> out.add(String.format(Locale.ROOT, "      %-40s %7.3f calls/job %8.2f us/call %7.2f us/job",
                    kind, t.calls() / perJob, t.usec() / (double) t.calls(), t.usec() / perJob)));
        }
        out.add(String.format(Locale.ROOT, "    JVM CPU %.2f us/job (%.0f%% of a core over %.1f s); by thread group: us/job on CPU, "
                + "us/job waiting for a CPU, context switches/job voluntary / involuntary", jvmCpu / 1e3 / perJob,
                jvmCpu / 1e9 / seconds * 100, seconds));
        long seen = 0;
        for (Map.Entry<String, ThreadTimes.Group> e : sorted(jvm)) {
            seen += e.getValue().cpuNs();
            line(out, e.getKey(), e.getValue(), perJob);
        }
        out.add(String.format(Locale.ROOT, "      %-28s %8.2f  (threads that ended during the phase, e.g. its publishing pool)",
                "(ended threads)", Math.max(0, jvmCpu - seen) / 1e3 / perJob));
        out.add("    redis-server threads (pid " + redisPid + "):");
        for (Map.Entry<String, ThreadTimes.Group> e : sorted(redis)) {
            line(out, e.getKey(), e.getValue(), perJob);
        }
        return String.join("\n", out);
    }

    /** Commands the engines send themselves, not from a script (the rest run inside EVALSHA, whose time holds theirs). */
    private static boolean sentByClients(String command) {
        return List.of("blmove", "brpoplpush", "blpop", "ping", "subscribe", "unsubscribe", "hello", "client|setinfo",
                "client|setname", "script|load", "script|flush", "flushall").contains(command);
    }

    private static List<Map.Entry<String, ThreadTimes.Group>> sorted(Map<String, ThreadTimes.Group> groups) {
        List<Map.Entry<String, ThreadTimes.Group>> list = new ArrayList<>(groups.entrySet());
        list.removeIf(e -> e.getValue().cpuNs() <= 0 && e.getValue().waitNs() <= 0);
        list.sort((a, b) -> Long.compare(b.getValue().cpuNs(), a.getValue().cpuNs()));
        return list;
    }

    private static void line(List<String> out, String name, ThreadTimes.Group g, double perJob) {
        if (g.cpuNs() / 1e3 / perJob < 0.01 && g.waitNs() / 1e3 / perJob < 0.01) {
            return;
        }
        out.add(String.format(Locale.ROOT, "      %-28s %8.2f %8.2f %7.3f / %.3f  (%d threads)", name, g.cpuNs() / 1e3 / perJob,
                g.waitNs() / 1e3 / perJob, g.voluntary() / perJob, g.involuntary() / perJob, g.threads()));
    }
}
