package dev.delayjobs.benchmark;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

import org.redisson.api.RDelayedQueue;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.bridge.RedissonQueueMigration;
import dev.delayjobs.embeddedredis.RedisServerProcess;

/**
 * What compatibility mode (a queue read from an existing Redisson {@code RDelayedQueue}) costs
 * next to a native queue and next to {@code RDelayedQueue} itself: 1,000 single offers/publishes
 * per second for 20 s per engine, each in a fresh context after an unreported warm-up; then the
 * migration of a 1M-element {@code RDelayedQueue} into the native queue. Three runs, FLUSHALL
 * between phases. Run with
 * {@code java -cp delay-benchmark/target/delay-benchmark.jar -Dloader.main=dev.delayjobs.benchmark.CompatibilityModeCost org.springframework.boot.loader.launch.PropertiesLauncher}.
 */
public final class CompatibilityModeCost {

    /** The bridged queue and its Redisson list share the name, as on a cluster they must share a slot. */
    private static final String COMPAT = "compat";
    private static final int RATE = 1000;
    private static final int SECONDS = 20;
    private static final int WARM_UP_SECONDS = 5;
    private static final int CONCURRENCY = 8;
    private static final int BACKLOG = 1_000_000;

    private enum Kind {
        NATIVE("native"), COMPAT("compatibility mode"), ANCHOR("RDelayedQueue");

        final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
    }

    /** What an old producer offers as JSON text; {@code due} (epoch ms, taken at offer) is there to measure lateness. */
    record Order(long id, long due, String data) {
    }

    /** The starter's handler on the bridged queue: gets each element typed, parsed from the JSON. */
    static final class CompatHandler {

        @DelayedHandler(queue = COMPAT, concurrency = "${benchmark.concurrency:8}", maxAttempts = "3")
        void handle(Order order) {
            Lateness.record(order.due());
        }
    }

    record Steady(Kind kind, Lateness.Summary lateness, double cpuUsPerJob, double commandsPerJob, double scriptsPerJob,
            String longest, long gcMs) {
    }

    public static void main(String[] args) {
        try (RedisServerProcess redis = RedisServerProcess.builder().binary(RedisServerProcess.onPath().orElse(null)).start();
                RedisProbe probe = new RedisProbe(redis.host(), redis.port())) {
            System.out.println("# compatibility mode cost: Redis " + probe.version() + " (" + redis.binary() + "), "
                    + Runtime.getRuntime().availableProcessors() + " CPUs, Java " + System.getProperty("java.version") + ", "
                    + RATE + " jobs/s for " + SECONDS + " s per engine, delays 100..1100 ms, 100-byte payloads, concurrency "
                    + CONCURRENCY + "; migration of " + BACKLOG + " elements");
            for (int run = 1; run <= 3; run++) {
                System.out.println();
                System.out.println("## run " + run + " (" + java.time.Instant.now() + ")");
                System.out.println("| engine | delivered | late p50 ms | late p99 ms | late max ms | early | Redis CPU us/job "
                        + "| Redis cmds/job | scripts/job | longest Redis call | JVM GC ms |");
                System.out.println("|---|---|---|---|---|---|---|---|---|---|---|");
                List<Steady> rows = new ArrayList<>();
                for (Kind kind : Kind.values()) {
                    Steady s = steady(redis, probe, kind, run);
                    rows.add(s);
                    Lateness.Summary l = s.lateness();
                    System.out.println(String.format(Locale.ROOT, "| %s | %,d | %.1f | %.1f | %.1f | %d | %.0f | %.1f | %.1f | %s | %d |",
                            kind.label, l.count(), l.p50(), l.p99(), l.max(), l.early(), s.cpuUsPerJob(), s.commandsPerJob(),
                            s.scriptsPerJob(), s.longest(), s.gcMs()));
                }
                Steady n = rows.get(0);
                Steady c = rows.get(1);
                Steady a = rows.get(2);
                System.out.println(String.format(Locale.ROOT,
                        "ratios: p99 compat/native %.2f, compat/RDelayedQueue %.2f; Redis CPU compat/native %.2f, "
                                + "compat/RDelayedQueue %.2f",
                        c.lateness().p99() / n.lateness().p99(), c.lateness().p99() / a.lateness().p99(),
                        c.cpuUsPerJob() / n.cpuUsPerJob(), c.cpuUsPerJob() / a.cpuUsPerJob()));
                System.out.println(migration(redis, probe, run));
            }
        }
        System.exit(0);
    }

    /** One engine at the steady rate, in its own context, after a warm-up of the same shape. */
    private static Steady steady(RedisServerProcess redis, RedisProbe probe, Kind kind, int run) {
        probe.flushAll();
        try (ConfigurableApplicationContext app = context(redis, kind)) {
            RedissonClient redisson = app.getBean(RedissonClient.class);
            AnchorEngine anchor = kind == Kind.ANCHOR ? new AnchorEngine(redisson, CONCURRENCY) : null;
            LongConsumer offer = switch (kind) {
                case NATIVE -> new StarterEngine(app.getBean(DelayPublisher.class))::publishOne;
                case COMPAT -> legacyProducer(redisson);
                case ANCHOR -> anchor::publishOne;
            };
            try {
                int warmUp = RATE * WARM_UP_SECONDS;
                Lateness.reset(warmUp);
                paced(offer, warmUp, run * 1000L + 7);
                if (!Lateness.await(warmUp, 30_000)) {
                    System.out.println("  warm-up of " + kind.label + " timed out: " + Lateness.count() + " of " + warmUp);
                }
                int total = RATE * SECONDS;
                Lateness.reset(total);
                long gcBefore = gcMillis();
                RedisProbe.Snapshot before = probe.begin();
                paced(offer, total, run);
                if (!Lateness.await(total, 30_000)) {
                    System.out.println("  " + kind.label + ": only " + Lateness.count() + " of " + total + " delivered");
                }
                RedisProbe.Snapshot after = probe.snapshot();
                Lateness.Summary lateness = Lateness.summary();
                double jobs = Math.max(1, lateness.count());
                // commands include those run inside scripts; scripts are EVAL/EVALSHA calls
                return new Steady(kind, lateness, (after.cpuSeconds() - before.cpuSeconds()) * 1e6 / jobs,
                        (after.calls() - before.calls()) / jobs, (after.scriptCalls() - before.scriptCalls()) / jobs,
                        probe.longest().describe(), gcMillis() - gcBefore);
            }
            finally {
                if (anchor != null) {
                    anchor.close();
                }
            }
        }
    }

    /**
     * A producer that knows nothing of the starter: plain Redisson offers of JSON text. It uses the
     * context's client, so one transfer task (the one the bridge opened) moves due elements, as
     * for the anchor.
     */
    private static LongConsumer legacyProducer(RedissonClient redisson) {
        RDelayedQueue<String> queue = delayedQueue(redisson);
        AtomicLong ids = new AtomicLong();
        return delay -> {
            long due = System.currentTimeMillis() + delay;
            queue.offer(json(ids.incrementAndGet(), due), delay, TimeUnit.MILLISECONDS);
        };
    }

    /** Preloads a 1M backlog due in 1-2 h, then migrates it from a context that handles the queue. */
    private static String migration(RedisServerProcess redis, RedisProbe probe, int run) {
        probe.flushAll();
        try (ConfigurableApplicationContext app = context(redis, Kind.COMPAT)) {
            RDelayedQueue<String> queue = delayedQueue(app.getBean(RedissonClient.class));
            Random random = new Random(run);
            long start = System.nanoTime();
            for (int from = 0; from < BACKLOG; from += 1000) {
                // pipelined: 1000 offers in flight, then wait for all of them
                List<CompletableFuture<Boolean>> pending = new ArrayList<>(1000);
                for (int i = from; i < from + 1000; i++) {
                    long delay = 3_600_000L + random.nextInt(3_600_000);
                    pending.add(queue.offerAsync(json(i, System.currentTimeMillis() + delay), delay, TimeUnit.MILLISECONDS)
                            .toCompletableFuture().thenApply(ignored -> true));
                }
                CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
            }
            double preloadSeconds = (System.nanoTime() - start) / 1e9;
            RedisProbe.Snapshot before = probe.begin();
            start = System.nanoTime();
            RedissonQueueMigration.Result result = app.getBean(RedissonQueueMigration.class).migrate(COMPAT);
            double seconds = (System.nanoTime() - start) / 1e9;
            RedisProbe.Snapshot after = probe.snapshot();
            long scripts = after.scriptCalls() - before.scriptCalls();
            double usecPerScript = (after.scriptUsec() - before.scriptUsec()) / (double) Math.max(1, scripts);
            return String.format(Locale.ROOT,
                    "migration: %,d elements preloaded in %.1f s; migrated %,d jobs (%d dead, complete %s) in %.1f s = %,.0f "
                            + "elements/s, %,d script calls, longest call client-side %d ms, Redis-side (SLOWLOG) %s, "
                            + "script calls average %.0f us in Redis, Redis CPU %.1f s",
                    BACKLOG, preloadSeconds, result.jobs(), result.dead(), result.complete(), seconds, result.jobs() / seconds,
                    result.calls(), result.longestCall().toMillis(), probe.longest().describe(), usecPerScript,
                    after.cpuSeconds() - before.cpuSeconds());
        }
    }

    @SuppressWarnings("deprecation")
    private static RDelayedQueue<String> delayedQueue(RedissonClient redisson) {
        return redisson.getDelayedQueue(redisson.getBlockingQueue(COMPAT, StringCodec.INSTANCE));
    }

    /** {@code {"id":N,"due":D,"data":"xxx..."}}, padded to 100 bytes. */
    private static String json(long id, long due) {
        String head = "{\"id\":" + id + ",\"due\":" + due + ",\"data\":\"";
        return head + "x".repeat(Math.max(0, Engine.PAYLOAD_BYTES - head.length() - 2)) + "\"}";
    }

    /** Offers {@code total} jobs at {@link #RATE} per second, one call each, delays uniform in 100..1100 ms. */
    private static void paced(LongConsumer offer, int total, long seed) {
        Random random = new Random(seed);
        long start = System.nanoTime();
        int sent = 0;
        while (sent < total) {
            int due = Pace.dueBy(start, RATE, total);
            if (sent >= due) {
                Pace.sleepMs(1);
            }
            while (sent < due) {
                offer.accept(100 + random.nextInt(1001));
                sent++;
            }
        }
    }

    /** A context with the starter and, per engine, its handler (none for the anchor, which takes by itself). */
    private static ConfigurableApplicationContext context(RedisServerProcess redis, Kind kind) {
        List<Class<?>> sources = new ArrayList<>(List.of(App.class));
        List<String> properties = new ArrayList<>(List.of("spring.data.redis.host=" + redis.host(),
                "spring.data.redis.port=" + redis.port(), "spring.main.banner-mode=off", "logging.level.root=warn",
                "logging.level.org.redisson.RedissonDelayedQueue=off",
                // its deprecation notice of RDelayedQueue, logged as an error each time one is created
                "logging.level.org.redisson.Redisson=off",
                "logging.level.org.redisson.client.handler.PingConnectionHandler=off",
                "benchmark.concurrency=" + CONCURRENCY));
        if (kind == Kind.NATIVE) {
            sources.add(StarterEngine.Handler.class);
        }
        else if (kind == Kind.COMPAT) {
            sources.add(CompatHandler.class);
            properties.add("delay.queues." + COMPAT + ".redisson-delayed-queue=" + COMPAT);
            properties.add("delay.queues." + COMPAT + ".redisson-codec=string");
        }
        return new SpringApplicationBuilder(sources.toArray(Class<?>[]::new)).web(WebApplicationType.NONE)
                .properties(properties.toArray(String[]::new)).run();
    }

    private static long gcMillis() {
        return ManagementFactory.getGarbageCollectorMXBeans().stream().mapToLong(GarbageCollectorMXBean::getCollectionTime)
                .sum();
    }
}
