package dev.delayjobs.benchmark;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.Map;

/**
 * One measured phase of a scenario: what the client sent and what the server did between
 * {@link #start} and {@link #finish}, per job.
 */
final class Phase {

    private final RedisProbe probe;
    private final RedisProbe.Snapshot before;
    private final long callsBefore;
    private final Map<String, Long> namesBefore;
    private final long gcMillisBefore;
    private final Breakdown breakdown;

    private Phase(RedisProbe probe) {
        this.probe = probe;
        this.callsBefore = CommandCounter.total();
        this.namesBefore = CommandCounter.byName();
        this.gcMillisBefore = gcMillis();
        this.before = probe.begin();
        this.breakdown = Breakdown.start(probe);
    }

    static Phase start(RedisProbe probe) {
        return new Phase(probe);
    }

    Row finish(String scenario, String engine, long jobs, double throughput, Lateness.Summary lateness, String note) {
        String where = breakdown == null ? null : breakdown.finish(jobs);
        RedisProbe.Snapshot after = probe.snapshot();
        long calls = CommandCounter.total() - callsBefore;
        String breakdown = CommandCounter.describe(namesBefore, CommandCounter.byName(), jobs);
        RedisProbe.Longest longest = probe.longest();
        double perJob = Math.max(1, jobs);
        long gc = gcMillis() - gcMillisBefore;
        note = (note.isEmpty() ? "" : note + "; ") + "JVM GC " + gc + " ms";
        if (where != null) {
            System.out.println("  where the time went, " + scenario + ", " + engine + ":\n" + where);
        }
        return new Row(scenario, engine, jobs, throughput, lateness,
                calls / perJob,
                (after.calls() - before.calls()) / perJob,
                (after.cpuSeconds() - before.cpuSeconds()) * 1e6 / perJob,
                (after.scriptUsec() - before.scriptUsec()) / perJob,
                Double.NaN, longest, note, breakdown);
    }

    /** Time the benchmark JVM spent collecting garbage (all collectors), ms. */
    private static long gcMillis() {
        long total = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            total += Math.max(0, gc.getCollectionTime());
        }
        return total;
    }

    record Row(String scenario, String engine, long jobs, double throughput, Lateness.Summary lateness,
            double callsPerJob, double serverCommandsPerJob, double cpuMicrosPerJob, double scriptMicrosPerJob,
            double bytesPerJob, RedisProbe.Longest longest, String note, String breakdown) {

        Row withBytes(double bytes) {
            return new Row(scenario, engine, jobs, throughput, lateness, callsPerJob, serverCommandsPerJob, cpuMicrosPerJob,
                    scriptMicrosPerJob, bytes, longest, note, breakdown);
        }
    }
}
