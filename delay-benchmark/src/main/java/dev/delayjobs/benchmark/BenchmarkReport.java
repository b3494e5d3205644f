package dev.delayjobs.benchmark;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The rows of a run: each printed as it is measured, then all of them as one Markdown table. */
final class BenchmarkReport {

    private final int dumpLate;
    private final List<Phase.Row> rows = new ArrayList<>();

    BenchmarkReport(int dumpLate) {
        this.dumpLate = dumpLate;
    }

    void add(Phase.Row row) {
        rows.add(row);
        System.out.println(format(row));
        System.out.println("    client calls per job: " + row.breakdown());
        if (row.lateness() != null && dumpLate > 0) {
            System.out.println("    latest (due ms mod 10 s : lateness ms): " + Lateness.worst(dumpLate));
        }
    }

    private static String format(Phase.Row r) {
        Lateness.Summary l = r.lateness();
        String lateness = l == null ? " |  | " : String.format(Locale.ROOT, "%.1f | %.1f | %.1f", l.p50(), l.p99(), l.max());
        String early = l == null ? "" : Integer.toString(l.early());
        return String.format(Locale.ROOT, "| %s | %s | %,d | %,.0f | %s | %s | %.2f | %.1f | %.1f | %s | %s | %s |",
                r.scenario(), r.engine(), r.jobs(), r.throughput(), lateness, early, r.callsPerJob(),
                r.serverCommandsPerJob(), r.cpuMicrosPerJob(), Double.isNaN(r.bytesPerJob()) ? "" : String.format(Locale.ROOT, "%.0f", r.bytesPerJob()),
                r.longest().describe(), r.note());
    }

    String table(String redisInfo) {
        StringBuilder out = new StringBuilder();
        out.append("Redis: ").append(redisInfo).append("\n\n");
        out.append("| scenario | engine | jobs | jobs/s | late p50 ms | late p99 ms | late max ms | early | calls/job | "
                + "Redis cmds/job | Redis CPU us/job | bytes/job | longest Redis call | note |\n");
        out.append("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|---|\n");
        for (Phase.Row r : rows) {
            out.append(format(r)).append('\n');
        }
        out.append("\nClient calls per job, by command:\n\n");
        for (Phase.Row r : rows) {
            out.append("- ").append(r.scenario()).append(", ").append(r.engine()).append(": ").append(r.breakdown()).append('\n');
        }
        return out.toString();
    }
}
