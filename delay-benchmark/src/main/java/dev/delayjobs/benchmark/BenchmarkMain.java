package dev.delayjobs.benchmark;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import dev.delayjobs.embeddedredis.RedisServerProcess;
import org.redisson.api.RedissonClient;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.listener.ListenerContainer;
import dev.delayjobs.listener.ListenerContainerRegistry;

/**
 * Runs every scenario for the starter and for Redisson's RDelayedQueue on the same Redis, one
 * engine at a time (the database is flushed between phases), and prints one table.
 *
 * <pre>
 * java -jar delay-benchmark/target/delay-benchmark.jar [--redis=redis://127.0.0.1:6379]
 *     [--scenarios=publish,rate,throughput,backlog] [--engines=starter,anchor] [--quick] ...
 * </pre>
 *
 * With {@code --redis} the given server is used and FLUSHALLed between phases: never point it at a
 * Redis that holds data you need.
 */
public final class BenchmarkMain {

    private final Options options;
    private final RedisProbe probe;
    private final StarterEngine starter;
    private final AnchorEngine anchor;
    private final ListenerContainer starterContainer;
    private final List<Phase.Row> rows = new ArrayList<>();

    private BenchmarkMain(Options options, RedisProbe probe, StarterEngine starter, AnchorEngine anchor,
            ListenerContainer starterContainer) {
        this.options = options;
        this.probe = probe;
        this.starter = starter;
        this.anchor = anchor;
        this.starterContainer = starterContainer;
    }

    public static void main(String[] args) throws Exception {
        Options options = Options.parse(args);
        RedisServerProcess server = null;
        String host = "127.0.0.1";
        int port;
        if (options.redisUrl != null) {
            URI uri = URI.create(options.redisUrl);
            host = uri.getHost();
            port = uri.getPort() > 0 ? uri.getPort() : 6379;
        }
        else {
            // Redis from the PATH (e.g. the OS's 7.x) when there is one, else the bundled 6.2
            server = RedisServerProcess.builder().binary(RedisServerProcess.onPath().orElse(null)).start();
            port = server.port();
        }
        try (RedisProbe probe = new RedisProbe(host, port)) {
            probe.flushAll();
            String redisInfo = "Redis " + probe.version() + " (" + (server != null ? server.binary() : options.redisUrl) + ")";
            System.out.println("# delay-benchmark on " + redisInfo + ", " + Runtime.getRuntime().availableProcessors()
                    + " CPUs, Java " + System.getProperty("java.version") + ", options " + options);
            ConfigurableApplicationContext context = new SpringApplicationBuilder(BenchApp.class)
                    .web(WebApplicationType.NONE)
                    .properties("spring.data.redis.host=" + host, "spring.data.redis.port=" + port,
                            "spring.main.banner-mode=off", "logging.level.root=warn",
                            "logging.level.org.redisson.RedissonDelayedQueue=off",
                            "logging.level.org.redisson.client.handler.PingConnectionHandler=off",
                            "benchmark.concurrency=" + options.concurrency)
                    .run();
            try {
                ListenerContainer container = context.getBean(ListenerContainerRegistry.class)
                        .getContainer(StarterEngine.QUEUE).orElseThrow();
                AnchorEngine anchor = options.engines.contains("anchor")
                        ? new AnchorEngine(context.getBean(RedissonClient.class), options.concurrency) : null;
                BenchmarkMain bench = new BenchmarkMain(options, probe,
                        new StarterEngine(context.getBean(DelayPublisher.class)), anchor, container);
                bench.run();
                String table = bench.table(redisInfo);
                System.out.println();
                System.out.println(table);
                if (options.output != null) {
                    Files.writeString(options.output, table);
                    System.out.println("table written to " + options.output);
                }
                if (anchor != null) {
                    anchor.close();
                }
            }
            finally {
                context.close();
            }
        }
        finally {
            if (server != null) {
                server.close();
            }
        }
        System.exit(0);
    }

    private void run() throws Exception {
        for (String engineName : options.engines) {
            warmUp(engineName.equals("anchor") ? anchor : starter);
        }
        for (String scenario : options.scenarios) {
            for (String engineName : options.engines) {
                Engine engine = engineName.equals("anchor") ? anchor : starter;
                // only the engine under test consumes: the other one's idle calls stay out of the counts
                if (engine == starter) {
                    starterContainer.start();
                }
                else {
                    starterContainer.stop();
                }
                switch (scenario) {
                    case "publish" -> publish(engine);
                    case "rate" -> rate(engine);
                    case "throughput" -> throughput(engine);
                    case "backlog" -> backlog(engine);
                    default -> throw new IllegalArgumentException("unknown scenario " + scenario);
                }
            }
        }
    }

    // ---------------------------------------------------------------- scenarios

    /** Runs both paths (single and batch publish, delivery) until the JIT has compiled them; nothing is reported. */
    private void warmUp(Engine engine) {
        if (engine == starter) {
            starterContainer.start();
        }
        else {
            starterContainer.stop();
        }
        probe.flushAll();
        Random random = new Random(options.seed);
        int rounds = 5;
        int perRound = 2000;
        Lateness.reset(rounds * perRound * 2);
        for (int round = 0; round < rounds; round++) {
            long[] delays = new long[perRound];
            for (int i = 0; i < perRound; i++) {
                delays[i] = random.nextInt(50);
                engine.publishOne(delays[i]);
            }
            engine.publishMany(delays);
        }
        boolean all = Lateness.await(rounds * perRound * 2, 30_000);
        System.out.println("  warm-up of " + engine.name() + (all ? " done" : " timed out: " + Lateness.count() + " delivered"));
        probe.flushAll();
    }

    /** Publish speed (single calls from 8 threads, then the batch API from 4) and Redis memory per pending job. */
    private void publish(Engine engine) throws Exception {
        probe.flushAll();
        Pace.sleepMs(200);
        long memoryBefore = probe.usedMemory();
        int single = options.publishJobs;
        Random random = new Random(options.seed);
        long[] delays = farFuture(random, single);
        Phase phase = Phase.start(probe);
        long t0 = System.nanoTime();
        parallel(8, single, (from, to) -> {
            for (int i = from; i < to; i++) {
                engine.publishOne(delays[i]);
            }
        });
        double seconds = (System.nanoTime() - t0) / 1e9;
        report(phase.finish("publish, single calls (8 threads)", engine.name(), single, single / seconds, null, ""));

        int batch = options.publishJobs * 4;
        long[] batchDelays = farFuture(random, batch);
        phase = Phase.start(probe);
        t0 = System.nanoTime();
        parallel(4, batch, (from, to) -> {
            for (int i = from; i < to; i += 1000) {
                engine.publishMany(Arrays.copyOfRange(batchDelays, i, Math.min(to, i + 1000)));
            }
        });
        seconds = (System.nanoTime() - t0) / 1e9;
        Pace.sleepMs(200);
        double bytes = (probe.usedMemory() - memoryBefore) / (double) (single + batch);
        report(phase.finish("publish, " + (engine == starter ? "batch API" : "offerAsync pipelined") + " (4 threads x 1000)",
                engine.name(), batch, batch / seconds, null, "memory: " + (single + batch) + " pending jobs")
                .withBytes(bytes));
    }

    /** {@code count} delays drawn with {@code seed}, uniform in {@code from}..{@code from + 1000} ms. */
    private static long[] delays(long seed, int count, int from) {
        Random random = new Random(seed);
        long[] delays = new long[count];
        for (int i = 0; i < count; i++) {
            delays[i] = from + random.nextInt(1001);
        }
        return delays;
    }

    /** A steady 1,000 jobs/s (configurable), single publish calls, delays 100..1100 ms. */
    private void rate(Engine engine) {
        probe.flushAll();
        int rate = options.rate;
        int total = rate * options.rateSeconds;
        long[] delays = delays(options.seed, total, 100);
        Lateness.reset(total);
        Phase phase = Phase.start(probe);
        long start = System.nanoTime();
        int sent = 0;
        while (sent < total) {
            int due = Pace.dueBy(start, rate, total);
            while (sent < due) {
                engine.publishOne(delays[sent++]);
            }
            Pace.sleepMs(1);
        }
        boolean all = Lateness.await(total, 30_000);
        double seconds = (Lateness.lastAt() - start) / 1e9 - 0.1;
        report(phase.finish(rate + " jobs/s for " + options.rateSeconds + " s, single publish", engine.name(), total,
                Lateness.count() / seconds, Lateness.summary(), all ? "" : "only " + Lateness.count() + " delivered in 30 s"));
    }

    /** Rising rates, published in batches every 10 ms, delays 200..1200 ms; stops at the first rate an engine cannot hold. */
    private void throughput(Engine engine) {
        for (int rate : options.rates) {
            probe.flushAll();
            int total = rate * options.stepSeconds;
            long[] delays = delays(options.seed + rate, total, 200);
            Lateness.reset(total);
            Phase phase = Phase.start(probe);
            long start = System.nanoTime();
            int sent = 0;
            while (sent < total) {
                int due = Pace.dueBy(start, rate, total);
                if (due > sent) {
                    engine.publishMany(Arrays.copyOfRange(delays, sent, due));
                    sent = due;
                }
                Pace.sleepMs(10);
            }
            double publishSeconds = (System.nanoTime() - start) / 1e9;
            boolean all = Lateness.await(total, 30_000);
            double seconds = (Lateness.lastAt() - start) / 1e9 - 0.2;
            Lateness.Summary lateness = Lateness.summary();
            String note = String.format(Locale.ROOT, "published in %.1f s", publishSeconds)
                    + (all ? "" : "; only " + Lateness.count() + " delivered 30 s after the last publish");
            report(phase.finish("throughput: " + rate + " jobs/s offered (batches every 10 ms)", engine.name(), total,
                    Lateness.count() / seconds, lateness, note));
            if (engine == anchor && !all) {
                anchor.restartTransfer();
            }
            if (!all || lateness.p99() > 1000) {
                System.out.println("  " + engine.name() + " cannot hold " + rate + " jobs/s; higher rates skipped");
                break;
            }
        }
    }

    /**
     * Far-future jobs pending ahead (10k, then 1M): the cost of a single publish, then 10k jobs that
     * become due within one second (due 1..2 s after publishing), all delivered?
     */
    private void backlog(Engine engine) throws Exception {
        for (int pending : options.backlogs) {
            probe.flushAll();
            Pace.sleepMs(200);
            long memoryBefore = probe.usedMemory();
            Random random = new Random(options.seed);
            long[] far = farFuture(random, pending);
            long t0 = System.nanoTime();
            parallel(2, pending, (from, to) -> {
                for (int i = from; i < to; i += 1000) {
                    engine.publishMany(Arrays.copyOfRange(far, i, Math.min(to, i + 1000)));
                }
            });
            System.out.printf(Locale.ROOT, "  %s: %,d far-future jobs preloaded in %.1f s%n", engine.name(), pending,
                    (System.nanoTime() - t0) / 1e9);
            Pace.sleepMs(200);
            double bytes = (probe.usedMemory() - memoryBefore) / (double) pending;
            String label = pending >= 1_000_000 ? (pending / 1_000_000) + "M" : (pending / 1000) + "k";

            int single = options.publishJobs;
            long[] more = farFuture(random, single);
            Phase phase = Phase.start(probe);
            t0 = System.nanoTime();
            parallel(8, single, (from, to) -> {
                for (int i = from; i < to; i++) {
                    engine.publishOne(more[i]);
                }
            });
            double seconds = (System.nanoTime() - t0) / 1e9;
            report(phase.finish("backlog " + label + ": single publish (8 threads)", engine.name(), single, single / seconds,
                    null, "bytes/job: memory of the " + label + " preloaded jobs").withBytes(bytes));

            int due = options.dueJobs;
            long[] soon = new long[due];
            for (int i = 0; i < due; i++) {
                soon[i] = 1000 + random.nextInt(1001);
            }
            Lateness.reset(due);
            phase = Phase.start(probe);
            long start = System.nanoTime();
            for (int i = 0; i < due; i += 500) {
                engine.publishMany(Arrays.copyOfRange(soon, i, Math.min(due, i + 500)));
            }
            boolean all = Lateness.await(due, 2000 + options.backlogWaitSeconds * 1000L);
            seconds = (Lateness.lastAt() - start) / 1e9 - 1.0;
            report(phase.finish("backlog " + label + ": " + due + " jobs due within 1 s", engine.name(), due,
                    Lateness.count() / seconds, Lateness.summary(),
                    all ? "" : "only " + Lateness.count() + " delivered within " + options.backlogWaitSeconds + " s of due"));
            if (engine == anchor && !all) {
                anchor.restartTransfer();
            }
        }
        probe.flushAll();
    }

    // ---------------------------------------------------------------- helpers

    private static long[] farFuture(Random random, int n) {
        long[] delays = new long[n];
        for (int i = 0; i < n; i++) {
            delays[i] = 3_600_000L + random.nextInt(3_600_000);
        }
        return delays;
    }

    interface Slice {
        void run(int from, int to) throws Exception;
    }

    /** Splits [0, total) into {@code threads} slices run at once; rethrows the first failure. */
    private static void parallel(int threads, int total, Slice slice) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> futures = new ArrayList<>();
            int per = (total + threads - 1) / threads;
            for (int t = 0; t < threads; t++) {
                int from = t * per;
                int to = Math.min(total, from + per);
                futures.add(pool.submit(() -> {
                    slice.run(from, to);
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
        }
        finally {
            pool.shutdownNow();
        }
    }

    private void report(Phase.Row row) {
        rows.add(row);
        System.out.println(format(row));
        System.out.println("    client calls per job: " + row.breakdown());
        if (row.lateness() != null && options.dumpLate > 0) {
            System.out.println("    latest (due ms mod 10 s : lateness ms): " + Lateness.worst(options.dumpLate));
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

    private String table(String redisInfo) {
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

    // ---------------------------------------------------------------- options

    static final class Options {
        String redisUrl;
        List<String> scenarios = List.of("publish", "rate", "throughput", "backlog");
        List<String> engines = List.of("starter", "anchor");
        int seed = 42;
        int concurrency = 8;
        int publishJobs = 40_000;
        int rate = 1000;
        int rateSeconds = 20;
        int[] rates = { 2_000, 5_000, 10_000, 20_000, 25_000, 30_000 };
        int stepSeconds = 10;
        int[] backlogs = { 10_000, 1_000_000 };
        int dueJobs = 10_000;
        int backlogWaitSeconds = 60;
        int dumpLate;
        Path output;

        static Options parse(String[] args) throws IOException {
            Options o = new Options();
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
                    case "rate" -> o.rate = Integer.parseInt(v);
                    case "rate-seconds" -> o.rateSeconds = Integer.parseInt(v);
                    case "rates" -> o.rates = Arrays.stream(v.split(",")).mapToInt(Integer::parseInt).toArray();
                    case "step-seconds" -> o.stepSeconds = Integer.parseInt(v);
                    case "backlogs" -> o.backlogs = Arrays.stream(v.split(",")).mapToInt(Integer::parseInt).toArray();
                    case "due-jobs" -> o.dueJobs = Integer.parseInt(v);
                    case "backlog-wait-seconds" -> o.backlogWaitSeconds = Integer.parseInt(v);
                    case "output" -> o.output = Path.of(v);
                    case "dump-late" -> o.dumpLate = Integer.parseInt(v);
                    default -> throw new IllegalArgumentException("unknown option --" + e.getKey());
                }
            }
            return o;
        }

        @Override
        public String toString() {
            return "scenarios=" + scenarios + " engines=" + engines + " seed=" + seed + " concurrency=" + concurrency
                    + " publishJobs=" + publishJobs + " rate=" + rate + "x" + rateSeconds + "s rates="
                    + Arrays.toString(rates) + "x" + stepSeconds + "s backlogs=" + Arrays.toString(backlogs) + " dueJobs="
                    + dueJobs;
        }
    }
}
