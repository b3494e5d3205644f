package dev.delayjobs.benchmark;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.delayjobs.embeddedredis.RedisServerProcess;

/**
 * The starter and the anchor ({@code RDelayedQueue}) as users run them: producer and consumer in
 * separate JVMs ({@link SeparateProducer}, {@link ColdConsumer}), the consumer started fresh for
 * every run, 8 consumer threads, handlers that only record. Scenarios: single publishes from 4
 * threads at 1,000, 1,500 and 3,000 jobs/s for 20 s (delays uniform in 100..1100 ms), and 10,000
 * jobs all due at one instant (published ahead, due 5 s after the producer starts). Each scenario
 * runs 3 times per engine, the engines' order alternating between runs; markdown goes to stdout.
 * Run with
 * {@code java -cp delay-benchmark/target/delay-benchmark.jar -Dloader.main=dev.delayjobs.benchmark.SeparateJvmBenchmark org.springframework.boot.loader.launch.PropertiesLauncher}
 * (options: {@code --runs=3 --seconds=20 --scenarios=1000,1500,3000,burst --burst=10000 --engines=starter,anchor}; {@code --warm-up-jobs=N}
 * is a diagnostic: each consumer first handles a burst of N jobs, so it is no longer cold; the
 * producer, a running application, warms up with {@code --producer-warm-up=N} publishes (20,000) first;
 * {@code --prefetch=N} sets the starter consumer's {@code delay.consumer.prefetch}, which otherwise
 * follows the workers' pace). In the burst scenario each consumer JVM then takes a second burst of the
 * same size (a warm drain, its own rows; {@code --second-burst=false} leaves it out), and prints how the
 * drain went ({@link DrainTimeline}) and the processes' CPU from the due time to the last start;
 * {@code --consumer-jvm-variants="-XX:TieredStopAtLevel=1;-XX:TieredStopAtLevel=1 -XX:CICompilerCount=1"} runs each
 * scenario again with consumer JVMs started with those flags (both engines; the empty entry is the
 * default JVM, the headline), and {@code --consumer-jfr=profile} (or the path of a {@code .jfc} file) has each consumer JVM
 * record JFR with those settings into the logs directory (a diagnostic: it slows the consumer).
 */
public final class SeparateJvmBenchmark {

    private static final String[] ENGINES = { "starter", "anchor" };
    private static final Duration START_TIMEOUT = Duration.ofMinutes(3);
    private static final long DRAIN_TIMEOUT_MS = 30_000;
    private static final long BURST_LEAD_MS = 5_000;
    /** Numbers of the second burst's jobs start here (the first's at 0, a warm-up's at {@link SeparateProducer#WARM_UP_NUMBERS}). */
    private static final int SECOND_BURST_NUMBERS = 2 * SeparateProducer.WARM_UP_NUMBERS;

    private SeparateJvmBenchmark() {
    }

    /** One scenario: a publish rate for {@code seconds}, or {@code rate == 0} for a burst of {@code jobs}. */
    record Scenario(String name, int rate, int seconds, int jobs) {

        boolean burst() {
            return rate == 0;
        }

        int expected() {
            return burst() ? jobs : rate * seconds;
        }
    }

    public static void main(String[] args) throws IOException {
        int runs = Integer.parseInt(option(args, "runs", "3"));
        int seconds = Integer.parseInt(option(args, "seconds", "20"));
        int burstJobs = Integer.parseInt(option(args, "burst", "10000"));
        int warmUpJobs = Integer.parseInt(option(args, "warm-up-jobs", "0"));
        int producerWarmUp = Integer.parseInt(option(args, "producer-warm-up", "20000"));
        String prefetch = option(args, "prefetch", "");
        // "" is the consumer with default JVM flags, the headline, always measured; each other entry adds its flags
        List<String> variants = new ArrayList<>(List.of(""));
        for (String flags : option(args, "consumer-jvm-variants", "").split(";")) {
            if (!flags.isBlank()) {
                variants.add(flags.strip());
            }
        }
        boolean secondBurst = Boolean.parseBoolean(option(args, "second-burst", "true"));
        // "profile", or a .jfc file of JFR settings
        String jfr = option(args, "consumer-jfr", "");
        List<String> engines = Arrays.asList(option(args, "engines", String.join(",", ENGINES)).split(","));
        List<Scenario> scenarios = new ArrayList<>();
        for (String name : option(args, "scenarios", "1000,1500,3000,burst").split(",")) {
            scenarios.add(name.equals("burst")
                    ? new Scenario(String.format("%,d due at one instant", burstJobs), 0, 0, burstJobs)
                    : new Scenario(String.format("%,d jobs/s for %d s", Integer.parseInt(name), seconds), Integer.parseInt(name), seconds, 0));
        }
        Path logs = Path.of("target", "separate-jvm", Long.toString(System.currentTimeMillis())).toAbsolutePath();
        Map<Scenario, Map<String, List<RunFigures>>> results = new LinkedHashMap<>();
        try (RedisServerProcess redis = RedisServerProcess.builder().binary(RedisServerProcess.onPath().orElse(null)).start()) {
            System.out.println("# separate JVMs, cold consumer: " + RedisServerProcess.describe(new File(redis.binary())) + " (" + redis.binary() + ") at "
                    + redis.address() + ", " + Instant.now() + ", logs in " + logs);
            System.out.println("\nStarter consumer: concurrency 8, prefetch "
                    + (prefetch.isEmpty() ? "unset (the default: follows the workers' pace)" : prefetch) + ".");
            System.out.println("\nEach producer JVM first published " + producerWarmUp + " jobs to another queue from its 4 threads (warm, "
                    + "as a running application); each consumer JVM is cold.");
            if (warmUpJobs > 0) {
                System.out.println("\nNot cold: each consumer first handled a warm-up burst of " + warmUpJobs + " jobs.");
            }
            if (secondBurst && scenarios.stream().anyMatch(Scenario::burst)) {
                System.out.println("\nBurst rows \"2nd burst\": a second burst of the same size in the same consumer JVM, "
                        + "published once the first drained and due " + BURST_LEAD_MS + " ms later (a warm drain).");
            }
            if (!jfr.isEmpty()) {
                System.out.println("\nEach consumer JVM records JFR (settings=" + jfr + ") into the logs: not the figures of a plain run.");
            }
            System.out.println();
            System.out.println("| run | scenario | engine | published | failed | publish jobs/s | delivered | lost | dup | early "
                    + "| late p50 ms | late p99 ms | late max ms | p99 first 3 s / later | drain ms | consumer ready ms | consumer GC ms | consumer JIT ms |");
            System.out.println("|--:|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
            for (int run = 1; run <= runs; run++) {
                for (Scenario scenario : scenarios) {
                    List<String> order = new ArrayList<>(engines);
                    if (run % 2 == 0) {
                        java.util.Collections.reverse(order);
                    }
                    for (String variant : variants) {
                        for (String engine : order) {
                            ConsumerJvm consumer = new ConsumerJvm(engine, variant, jfr, scenario.burst() && secondBurst);
                            Map<String, RunFigures> rows = measure(redis, run, scenario, consumer, logs, warmUpJobs, producerWarmUp, prefetch);
                            for (Map.Entry<String, RunFigures> row : rows.entrySet()) {
                                String label = row.getKey();
                                RunFigures f = row.getValue();
                                results.computeIfAbsent(scenario, s -> new LinkedHashMap<>()).computeIfAbsent(label, e -> new ArrayList<>()).add(f);
                                System.out.printf("| %d | %s | %s | %d | %d | %,.0f | %d | %d | %d | %d | %.1f | %.1f | %.1f | %.1f / %.1f | %.0f | %d | %d | %d |%n",
                                        run, scenario.name(), label, f.published(), f.failed(), f.publishRate(), f.delivered(), f.lost(),
                                        f.duplicates(), f.early(), f.p50(), f.p99(), f.max(), f.p99FirstSeconds(), f.p99Later(), f.drainMs(),
                                        f.startupMs(), f.gcMs(), f.jitMs());
                            }
                        }
                    }
                }
            }
        }
        SeparateJvmSummary.print(results);
    }

    /** The figures of one consumer JVM, by row label: its run, and for a second burst, that one too. */
    private static Map<String, RunFigures> measure(RedisServerProcess redis, int run, Scenario scenario, ConsumerJvm consumerJvm, Path logs,
            int warmUpJobs, int producerWarmUp, String prefetch) throws IOException {
        String engine = consumerJvm.engine();
        String id = "sep" + run + "-" + (scenario.burst() ? "burst" : scenario.rate()) + "-" + consumerJvm.fileName();
        boolean starter = engine.equals("starter");
        List<String> common = List.of("--spring.data.redis.host=" + redis.host(), "--spring.data.redis.port=" + redis.port(),
                "--spring.main.banner-mode=off", "--logging.level.root=warn", "--delay.key-prefix=" + id,
                "--bench.engine=" + engine, "--bench.queue=" + (starter ? ColdConsumer.STARTER_QUEUE : id));
        Path handled = logs.resolve(id + ".handled");
        List<String> consumerArgs = new ArrayList<>(common);
        int secondJobs = consumerJvm.secondBurst() ? scenario.jobs() : 0;
        consumerArgs.addAll(List.of("--bench.capacity=" + ((scenario.expected() + warmUpJobs + secondJobs) * 2 + 1000),
                "--bench.out=" + handled));
        if (starter && !prefetch.isEmpty()) {
            consumerArgs.add("--delay.consumer.prefetch=" + prefetch);
        }
        List<String> producerArgs = new ArrayList<>(common);
        producerArgs.add("--bench.producer-warm-up=" + producerWarmUp);
        producerArgs.addAll(scenario.burst()
                ? List.of("--bench.mode=burst", "--bench.jobs=" + scenario.jobs(), "--bench.lead-ms=" + BURST_LEAD_MS)
                : List.of("--bench.mode=rate", "--bench.rate=" + scenario.rate(), "--bench.seconds=" + scenario.seconds(), "--bench.seed=42"));
        long started = System.nanoTime();
        try (ChildJvm consumer = ChildJvm.start(id + "-consumer", ColdConsumer.class, logs,
                consumerJvm.jvmOptions(logs.resolve(id + "-consumer.jfr")), consumerArgs);
                ChildJvm producer = ChildJvm.start(id + "-producer", SeparateProducer.class, logs, producerArgs)) {
            consumer.await("ready", START_TIMEOUT);
            long startupMs = (System.nanoTime() - started) / 1_000_000;
            producer.await("ready", START_TIMEOUT);
            if (warmUpJobs > 0) {
                warmUp(consumer, producer, warmUpJobs);
            }
            ProcessTimes times = new ProcessTimes(List.of(producer.name(), consumer.name(), "redis-server"),
                    List.of(producer.pid(), consumer.pid(), redis.pid()));
            producer.send("go");
            String[] report = producer.await("published", Duration.ofSeconds(scenario.seconds() + 300)).split(" ");
            int published = Integer.parseInt(report[0]);
            int failed = Integer.parseInt(report[1]);
            double publishSeconds = Double.parseDouble(report[2]);
            long lastDue = Long.parseLong(report[3]);
            if (scenario.burst()) {
                times = drainTimes(id, report, producer, consumer, redis);
            }
            while (consumer.count() < published + warmUpJobs && System.currentTimeMillis() < lastDue + DRAIN_TIMEOUT_MS && consumer.isAlive()) {
                Pace.sleepMs(20);
            }
            Pace.sleepMs(300); // a late duplicate would still be counted
            System.out.println("<!-- " + id + (scenario.burst() ? ", due to drained: " + times.finish(published, 6)
                    : ", go to drained: " + times.finish(published)) + " -->");
            int secondPublished = 0;
            int secondFailed = 0;
            double secondSeconds = 0;
            if (secondJobs > 0) {
                Pace.sleepMs(1000);
                producer.send("burst " + secondJobs + " " + SECOND_BURST_NUMBERS + " " + BURST_LEAD_MS);
                String[] second = producer.await("published", Duration.ofSeconds(300)).split(" ");
                secondPublished = Integer.parseInt(second[0]);
                secondFailed = Integer.parseInt(second[1]);
                secondSeconds = Double.parseDouble(second[2]);
                ProcessTimes secondTimes = drainTimes(id + " 2nd burst", second, producer, consumer, redis);
                long secondDue = Long.parseLong(second[3]);
                while (consumer.count() < published + warmUpJobs + secondPublished
                        && System.currentTimeMillis() < secondDue + DRAIN_TIMEOUT_MS && consumer.isAlive()) {
                    Pace.sleepMs(20);
                }
                Pace.sleepMs(300);
                System.out.println("<!-- " + id + " 2nd burst, due to drained: " + secondTimes.finish(secondPublished, 6) + " -->");
            }
            consumer.send("stop");
            String[] done = consumer.await("done", Duration.ofSeconds(60)).split(" ");
            producer.send("stop");
            consumer.waitForExit(Duration.ofSeconds(30));
            producer.waitForExit(Duration.ofSeconds(30));
            Map<String, RunFigures> rows = new LinkedHashMap<>();
            rows.put(consumerJvm.label(), RunFigures.read(handled, published, failed, published / publishSeconds, Long.parseLong(done[0]),
                    Long.parseLong(done[1]), startupMs));
            if (scenario.burst()) {
                System.out.println("<!-- " + id + " drain: " + DrainTimeline.of(handled, 0) + " -->");
            }
            if (secondJobs > 0) {
                System.out.println("<!-- " + id + " 2nd burst drain: " + DrainTimeline.of(handled, SECOND_BURST_NUMBERS) + " -->");
                rows.put(consumerJvm.label() + ", 2nd burst", RunFigures.read(handled, SECOND_BURST_NUMBERS, secondPublished, secondFailed,
                        secondPublished / secondSeconds, Long.parseLong(done[0]), Long.parseLong(done[1]), startupMs));
            }
            return rows;
        }
    }

    /**
     * After a burst's {@code published} report: says when its publishing ended after the due time,
     * else waits for the due time, and from there measures the processes' CPU (the drain's own).
     */
    private static ProcessTimes drainTimes(String id, String[] report, ChildJvm producer, ChildJvm consumer, RedisServerProcess redis) {
        long due = Long.parseLong(report[3]);
        long publishedAt = Long.parseLong(report[4]);
        if (publishedAt > due) {
            System.out.println("<!-- " + id + ": the burst's publishing ended " + (publishedAt - due) + " ms after its due time -->");
        }
        long wait = due - System.currentTimeMillis();
        if (wait > 0) {
            Pace.sleepMs(wait);
        }
        return new ProcessTimes(List.of(producer.name(), consumer.name(), "redis-server"), List.of(producer.pid(), consumer.pid(), redis.pid()));
    }

    /** A diagnostic, not what users run: a burst the consumer handles before the measured publishing starts. */
    private static void warmUp(ChildJvm consumer, ChildJvm producer, int jobs) {
        producer.send("warm " + jobs);
        producer.await("published", Duration.ofMinutes(2));
        long deadline = System.currentTimeMillis() + DRAIN_TIMEOUT_MS * 2;
        while (consumer.count() < jobs && System.currentTimeMillis() < deadline) {
            Pace.sleepMs(20);
        }
        Pace.sleepMs(1000);
    }

    private static String option(String[] args, String name, String fallback) {
        return Arrays.stream(args).filter(a -> a.startsWith("--" + name + "=")).map(a -> a.substring(name.length() + 3))
                .findFirst().orElse(fallback);
    }
}
