package dev.delayjobs.benchmark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.PublishRequest;
import dev.delayjobs.embeddedredis.RedisCluster;
import dev.delayjobs.embeddedredis.RedisServerProcess;
import dev.delayjobs.embeddedredis.RespConnection;

/**
 * Whether {@code delay.queues.<queue>.partitions} spreads one queue's Redis work over the masters
 * of a cluster: one queue on a 3-master Redis Cluster (no replicas), consumed with
 * {@code partitions=1} and {@code partitions=3}, alternated, 3 runs each. Each run starts a fresh
 * context (fresh key prefix, concurrency 16, a handler that only records the delivery), warms it up
 * with an unreported batch, then publishes {@value #JOBS} jobs due in 0..1 s as fast as 8 threads
 * can with {@link DelayPublisher#publishAll} (500 per call) and waits until all are handled. It
 * reports the delivered rate over the middle 80% of the deliveries, lateness, and the Redis CPU
 * ({@code INFO CPU}, sys + user) each master spent between the first publish and the last
 * delivery. Run with
 * {@code java -cp delay-benchmark/target/delay-benchmark.jar -Dloader.main=dev.delayjobs.benchmark.PartitionScaleBenchmark org.springframework.boot.loader.launch.PropertiesLauncher}
 * after {@code ./mvnw -B -o -q -pl delay-benchmark -am package -DskipTests} ({@code -Dscale.concurrency=48}
 * before {@code -cp} for another concurrency than 16).
 */
public final class PartitionScaleBenchmark {

    private static final String QUEUE = "scale";
    private static final int MASTERS = 3;
    private static final int[] PARTITIONS = { 1, 3 };
    private static final int RUNS = 3;
    private static final int THREADS = 8;
    private static final int BATCH = 500;
    private static final int JOBS = 500_000;
    private static final int WARM_UP_JOBS = 10_000;
    /** Handler threads of the one consumer instance; {@code -Dscale.concurrency} to change. */
    private static final int CONCURRENCY = Integer.getInteger("scale.concurrency", 16);
    private static final long MAX_DELAY_MS = 1000;
    /** How long the deliveries may trail the last publish before the run is reported short. */
    private static final long DRAIN_TIMEOUT_MS = 120_000;

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
    }

    /** Records each delivery (its lateness, and so the count), nothing else. */
    static final class Handler {

        @DelayedHandler(queue = QUEUE)
        void handle(DelayedJob<StarterEngine.Payload> job) {
            Lateness.record(job.dueAt().toEpochMilli());
        }
    }

    record Row(int run, int partitions, double deliveredPerSecond, Lateness.Summary lateness, double[] cpuSeconds,
            double publishSeconds, String shortfall) {

        double totalCpu() {
            double sum = 0;
            for (double c : cpuSeconds) {
                sum += c;
            }
            return sum;
        }

        double busiestCpu() {
            double max = 0;
            for (double c : cpuSeconds) {
                max = Math.max(max, c);
            }
            return max;
        }
    }

    public static void main(String[] args) throws InterruptedException {
        try (RedisCluster cluster = RedisCluster.start(MASTERS, 0, Duration.ofSeconds(5))) {
            List<RedisServerProcess> masters = cluster.masters();
            System.out.println("# partition scale: one queue on a " + MASTERS + "-master Redis Cluster (" + version(masters.get(0))
                    + ", masters " + masters.stream().map(RedisServerProcess::address).collect(Collectors.joining(", "))
                    + "), " + Runtime.getRuntime().availableProcessors() + " CPUs, Java " + System.getProperty("java.version")
                    + "; per run " + String.format(Locale.ROOT, "%,d", JOBS) + " jobs due in 0.." + MAX_DELAY_MS
                    + " ms published by " + THREADS + " threads in batches of " + BATCH + ", concurrency " + CONCURRENCY
                    + ", 100-byte payloads");
            List<Row> rows = new ArrayList<>();
            for (int run = 1; run <= RUNS; run++) {
                for (int partitions : PARTITIONS) {
                    Row row = measure(cluster, run, partitions);
                    rows.add(row);
                    System.out.println(String.format(Locale.ROOT, "  run %d, partitions %d: %,.0f jobs/s delivered, "
                            + "published in %.1f s%s", run, partitions, row.deliveredPerSecond(), row.publishSeconds(),
                            row.shortfall().isEmpty() ? "" : "; " + row.shortfall()));
                    flushAll(masters);
                }
            }
            System.out.println();
            System.out.println("Redis CPU per master is " + masters.stream().map(RedisServerProcess::address)
                    .collect(Collectors.joining(" / ")) + ", in seconds, from the first publish to the last delivery.");
            System.out.println();
            System.out.println("| run | partitions | delivered jobs/s | late p50 ms | late p99 ms | Redis CPU s per master "
                    + "| Redis CPU us/job (total) | Redis CPU us/job (busiest master) | busiest master share % | note |");
            System.out.println("|---|---|---|---|---|---|---|---|---|---|");
            for (Row r : rows) {
                double jobs = Math.max(1, r.lateness().count());
                String perMaster = Arrays.stream(r.cpuSeconds())
                        .mapToObj(c -> String.format(Locale.ROOT, "%.2f", c)).collect(Collectors.joining(" / "));
                String note = String.format(Locale.ROOT, "published in %.1f s", r.publishSeconds())
                        + (r.shortfall().isEmpty() ? "" : "; " + r.shortfall());
                System.out.println(String.format(Locale.ROOT, "| %d | %d | %,.0f | %.1f | %.1f | %s | %.1f | %.1f | %.0f | %s |",
                        r.run(), r.partitions(), r.deliveredPerSecond(), r.lateness().p50(), r.lateness().p99(), perMaster,
                        r.totalCpu() * 1e6 / jobs, r.busiestCpu() * 1e6 / jobs,
                        r.totalCpu() > 0 ? 100 * r.busiestCpu() / r.totalCpu() : Double.NaN, note));
            }
        }
        System.exit(0);
    }

    /** One run: a fresh context, an unreported warm-up, then the measured burst until every job is handled. */
    private static Row measure(RedisCluster cluster, int run, int partitions) throws InterruptedException {
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(App.class, Handler.class)
                .web(WebApplicationType.NONE)
                .properties("spring.data.redis.cluster.nodes=" + cluster.nodes(), "spring.main.banner-mode=off",
                        "logging.level.root=warn", "logging.level.org.redisson.client.handler.PingConnectionHandler=off",
                        "delay.key-prefix=scale" + run + "p" + partitions + "t" + System.nanoTime(),
                        "delay.queues." + QUEUE + ".concurrency=" + CONCURRENCY,
                        "delay.queues." + QUEUE + ".partitions=" + partitions)
                .run()) {
            DelayPublisher publisher = app.getBean(DelayPublisher.class);

            Lateness.reset(WARM_UP_JOBS);
            publishFast(publisher, WARM_UP_JOBS);
            if (!Lateness.await(WARM_UP_JOBS, DRAIN_TIMEOUT_MS)) {
                System.out.println("  warm-up timed out: " + Lateness.count() + " of " + WARM_UP_JOBS + " delivered");
            }

            Lateness.reset(JOBS);
            List<RedisServerProcess> masters = cluster.masters();
            double[] cpuBefore = cpuSeconds(masters);
            DeliverySampler sampler = new DeliverySampler();
            sampler.start();
            long start = System.nanoTime();
            publishFast(publisher, JOBS);
            double publishSeconds = (System.nanoTime() - start) / 1e9;
            boolean all = Lateness.await(JOBS, DRAIN_TIMEOUT_MS);
            double[] cpuAfter = cpuSeconds(masters);
            sampler.stop();
            double[] cpu = new double[masters.size()];
            for (int i = 0; i < cpu.length; i++) {
                cpu[i] = cpuAfter[i] - cpuBefore[i];
            }
            String shortfall = all ? ""
                    : String.format(Locale.ROOT, "only %,d of %,d delivered %d s after the last publish", Lateness.count(),
                            JOBS, DRAIN_TIMEOUT_MS / 1000);
            return new Row(run, partitions, sampler.steadyRate(Lateness.count()), Lateness.summary(), cpu, publishSeconds,
                    shortfall);
        }
    }

    /** Publishes {@code total} jobs due in 0..1 s from {@link #THREADS} threads, {@link #BATCH} per publishAll call. */
    private static void publishFast(DelayPublisher publisher, int total) throws InterruptedException {
        StarterEngine.Payload payload = new StarterEngine.Payload("x".repeat(Engine.PAYLOAD_BYTES - "{\"data\":\"\"}".length()));
        AtomicInteger claimed = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            Thread thread = new Thread(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                while (true) {
                    int from = claimed.getAndAdd(BATCH);
                    if (from >= total) {
                        return;
                    }
                    int n = Math.min(BATCH, total - from);
                    List<PublishRequest> requests = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        requests.add(PublishRequest.of(payload).delay(Duration.ofMillis(random.nextLong(MAX_DELAY_MS + 1))));
                    }
                    publisher.publishAll(QUEUE, requests);
                }
            }, "scale-publisher-" + t);
            threads.add(thread);
        }
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            thread.join();
        }
    }

    /**
     * Polls the delivery count every 20 ms, so that the rate can be read over the middle of the
     * run, leaving out the start (jobs not yet due) and the tail.
     */
    private static final class DeliverySampler {

        private final List<long[]> samples = new ArrayList<>();
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final Thread thread = new Thread(this::poll, "scale-sampler");

        void start() {
            thread.start();
        }

        void stop() throws InterruptedException {
            running.set(false);
            thread.join();
        }

        private void poll() {
            while (running.get()) {
                long[] sample = { System.nanoTime(), Lateness.count() };
                synchronized (samples) {
                    samples.add(sample);
                }
                Pace.sleepMs(20);
            }
        }

        /** Deliveries per second between the 10% and the 90% mark of {@code delivered}. */
        double steadyRate(int delivered) {
            long low = delivered / 10;
            long high = delivered * 9L / 10;
            long[] from = null;
            long[] to = null;
            synchronized (samples) {
                for (long[] s : samples) {
                    if (from == null && s[1] >= low) {
                        from = s;
                    }
                    if (to == null && s[1] >= high) {
                        to = s;
                    }
                }
            }
            if (from == null || to == null || to[0] <= from[0]) {
                return Double.NaN;
            }
            return (to[1] - from[1]) / ((to[0] - from[0]) / 1e9);
        }
    }

    /** used_cpu_sys + used_cpu_user of each master, in seconds. */
    private static double[] cpuSeconds(List<RedisServerProcess> masters) {
        double[] out = new double[masters.size()];
        for (int i = 0; i < out.length; i++) {
            try (RedisProbe probe = new RedisProbe(masters.get(i).host(), masters.get(i).port())) {
                out[i] = probe.cpuSeconds();
            }
        }
        return out;
    }

    private static String version(RedisServerProcess node) {
        try (RedisProbe probe = new RedisProbe(node.host(), node.port())) {
            return "Redis " + probe.version();
        }
    }

    /**
     * Empties every master between runs, so that no run inherits another's keys, memory or loaded
     * scripts (each run loads its own, as the first did).
     */
    private static void flushAll(List<RedisServerProcess> masters) {
        for (RedisServerProcess master : masters) {
            try (RespConnection c = new RespConnection(master.host(), master.port(), Duration.ZERO)) {
                c.call("FLUSHALL");
                c.call("SCRIPT", "FLUSH");
            }
        }
    }
}
