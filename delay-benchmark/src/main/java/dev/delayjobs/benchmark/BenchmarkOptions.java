package dev.delayjobs.benchmark;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The command line of {@link BenchmarkMain}: {@code --name=value} options, {@code --quick} for smaller sizes. */
final class BenchmarkOptions {

    String redisUrl;
    List<String> scenarios = List.of("publish", "rate", "throughput", "backlog");
    List<String> engines = List.of("starter", "anchor");
    int seed = 42;
    int concurrency = 8;
    int publishJobs = 40_000;
    /** random (1 to 2 h) or fixed (1 h) delays in the publish scenario. */
    String publishDelays = "random";
    int rate = 1000;
    int rateSeconds = 20;
    int[] rates = { 2_000, 5_000, 10_000, 20_000, 25_000, 30_000 };
    int stepSeconds = 10;
    int[] backlogs = { 10_000, 1_000_000 };
    int dueJobs = 10_000;
    int backlogWaitSeconds = 60;
    int dumpLate;
    Path output;

    static BenchmarkOptions parse(String[] args) {
        BenchmarkOptions o = new BenchmarkOptions();
        Map<String, String> given = new LinkedHashMap<>();
        for (String arg : args) {
            if (!arg.startsWith("--")) {
                throw new IllegalArgumentException("unknown argument " + arg);
            }
            int eq = arg.indexOf('=');
            given.put(eq < 0 ? arg.substring(2) : arg.substring(2, eq), eq < 0 ? "true" : arg.substring(eq + 1));
        }
        if (Boolean.parseBoolean(given.remove("quick"))) {
            o.publishJobs = 8_000;
            o.rateSeconds = 5;
            o.rates = new int[] { 5_000, 20_000 };
            o.stepSeconds = 4;
            o.backlogs = new int[] { 10_000, 100_000 };
            o.backlogWaitSeconds = 20;
        }
        for (Map.Entry<String, String> e : given.entrySet()) {
            String v = e.getValue();
            switch (e.getKey()) {
                case "redis" -> o.redisUrl = v;
                case "scenarios" -> o.scenarios = List.of(v.split(","));
                case "engines" -> o.engines = List.of(v.split(","));
                case "seed" -> o.seed = Integer.parseInt(v);
                case "concurrency" -> o.concurrency = Integer.parseInt(v);
                case "publish-jobs" -> o.publishJobs = Integer.parseInt(v);
                case "publish-delays" -> {
                    if (!v.equals("random") && !v.equals("fixed")) {
                        throw new IllegalArgumentException("--publish-delays must be random or fixed, was " + v);
                    }
                    o.publishDelays = v;
                }
                case "rate" -> o.rate = Integer.parseInt(v);
                case "rate-seconds" -> o.rateSeconds = Integer.parseInt(v);
                case "rates" -> o.rates = Arrays.stream(v.split(",")).mapToInt(Integer::parseInt).toArray();
                case "step-seconds" -> o.stepSeconds = Integer.parseInt(v);
                case "backlogs" -> o.backlogs = Arrays.stream(v.split(",")).mapToInt(Integer::parseInt).toArray();
                case "due-jobs" -> o.dueJobs = Integer.parseInt(v);
                case "backlog-wait-seconds" -> o.backlogWaitSeconds = Integer.parseInt(v);
                case "output" -> o.output = Path.of(v);
                case "breakdown" -> Breakdown.enabled = Boolean.parseBoolean(v);
                case "script-times" -> {
                    Breakdown.scriptTimes = Boolean.parseBoolean(v);
                    Breakdown.enabled |= Breakdown.scriptTimes;
                }
                case "dump-late" -> o.dumpLate = Integer.parseInt(v);
                default -> throw new IllegalArgumentException("unknown option --" + e.getKey());
            }
        }
        return o;
    }

    @Override
    public String toString() {
        return "scenarios=" + scenarios + " engines=" + engines + " seed=" + seed + " concurrency=" + concurrency
                + " publishJobs=" + publishJobs + " publishDelays=" + publishDelays + " rate=" + rate + "x" + rateSeconds + "s rates="
                + Arrays.toString(rates) + "x" + stepSeconds + "s backlogs=" + Arrays.toString(backlogs) + " dueJobs="
                + dueJobs;
    }
}
