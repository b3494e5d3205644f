package dev.delayjobs.benchmark;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/** The summary tables of {@link SeparateJvmBenchmark}: each figure's median and spread over the runs, and the starter / anchor ratios per run. */
final class SeparateJvmSummary {

    private SeparateJvmSummary() {
    }

    static void print(Map<SeparateJvmBenchmark.Scenario, Map<String, List<RunFigures>>> results) {
        System.out.println();
        System.out.println("Median (min-max) of the runs:");
        System.out.println();
        System.out.println("| scenario | engine | delivered | lost | early | publish jobs/s | late p50 ms | late p99 ms | late max ms | p99 first 3 s | drain ms |");
        System.out.println("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
        results.forEach((scenario, byEngine) -> byEngine.forEach((engine, runs) -> System.out.printf(
                "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n", scenario.name(), engine,
                spread(runs, RunFigures::delivered, "%.0f"), spread(runs, RunFigures::lost, "%.0f"),
                spread(runs, RunFigures::early, "%.0f"), spread(runs, RunFigures::publishRate, "%,.0f"),
                spread(runs, RunFigures::p50, "%.1f"), spread(runs, RunFigures::p99, "%.1f"), spread(runs, RunFigures::max, "%.1f"),
                spread(runs, RunFigures::p99FirstSeconds, "%.1f"), scenario.burst() ? spread(runs, RunFigures::drainMs, "%.0f") : "")));
        System.out.println();
        System.out.println("Starter / anchor, per run (below 1: the starter is better):");
        System.out.println();
        System.out.println("| scenario | figure | ratio per run |");
        System.out.println("|---|---|---|");
        results.forEach((scenario, byLabel) -> byLabel.forEach((label, starter) -> {
            // each starter row against the anchor's row of the same consumer JVM flags and burst
            List<RunFigures> anchor = byLabel.get(label.replaceFirst("^starter", "anchor"));
            if (!label.startsWith("starter") || anchor == null) {
                return;
            }
            ToDoubleFunction<RunFigures> figure = scenario.burst() ? RunFigures::drainMs : RunFigures::p99;
            List<String> ratios = new ArrayList<>();
            for (int i = 0; i < Math.min(starter.size(), anchor.size()); i++) {
                ratios.add(String.format("%.2f", figure.applyAsDouble(starter.get(i)) / figure.applyAsDouble(anchor.get(i))));
            }
            String name = scenario.name() + (label.equals("starter") ? "" : " (" + label.substring("starter".length()).replaceFirst("^,? *", "") + ")");
            System.out.printf("| %s | %s | %s |%n", name, scenario.burst() ? "drain time" : "lateness p99", String.join(", ", ratios));
        }));
    }

    private static String spread(List<RunFigures> runs, ToDoubleFunction<RunFigures> figure, String format) {
        double[] values = runs.stream().mapToDouble(figure).sorted().toArray();
        if (values.length == 0) {
            return "";
        }
        String median = String.format(format, values[values.length / 2]);
        return values.length == 1 ? median
                : median + " (" + String.format(format, values[0]) + "-" + String.format(format, values[values.length - 1]) + ")";
    }
}
