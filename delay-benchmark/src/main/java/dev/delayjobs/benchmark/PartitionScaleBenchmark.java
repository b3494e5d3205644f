package dev.delayjobs.benchmark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.PublishRequest;
import dev.delayjobs.embeddedredis.RedisCluster;
import dev.delayjobs.embeddedredis.RedisServerProcess;
import dev.delayjobs.embeddedredis.RespConnection;

/**
 * One queue on a 3-master Redis Cluster, laid out in 1 and then in 3 partitions, alternated 3 times:
 * {@value #JOBS} jobs published with the batch API and all due at once, drained by one consumer
 * instance ({@value #CONCURRENCY} workers, empty handler). Reports the drain rate and each master's
 * Redis CPU (INFO cpu) per job, end to end (publish, transfer, claim, ack). Run with
 * {@code java -cp delay-benchmark/target/delay-benchmark.jar -Dloader.main=dev.delayjobs.benchmark.PartitionScaleBenchmark org.springframework.boot.loader.launch.PropertiesLauncher}.
 */
public final class PartitionScaleBenchmark {

    private static final int JOBS = 60_000;
    private static final int CONCURRENCY = 16;
    private static final String QUEUE = "scale";

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
    }

    static final class Handler {

        static final AtomicInteger handled = new AtomicInteger();

        @DelayedHandler(queue = QUEUE, concurrency = "" + CONCURRENCY)
        void handle(String payload) {
            handled.incrementAndGet();
        }
    }

    public static void main(String[] args) throws InterruptedException {
        try (RedisCluster cluster = RedisCluster.start(3, 0, Duration.ofSeconds(5))) {
            System.out.println("# one queue, 1 vs 3 partitions, 3-master cluster on loopback; " + JOBS + " jobs due at once, "
                    + "published in batches of 500, one consumer with " + CONCURRENCY + " workers");
            System.out.println("| run | partitions | publish jobs/s | drain jobs/s | Redis CPU s per master | µs Redis CPU per job | busiest master |");
            System.out.println("|---|---|---|---|---|---|---|");
            for (int run = 1; run <= 3; run++) {
                for (int partitions : new int[] { 1, 3 }) {
                    System.out.println("| " + run + " | " + partitions + " | " + measure(cluster, partitions, run) + " |");
                }
            }
        }
    }

    private static String measure(RedisCluster cluster, int partitions, int run) throws InterruptedException {
        Handler.handled.set(0);
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(App.class, Handler.class)
                .web(WebApplicationType.NONE)
                .properties("spring.data.redis.cluster.nodes=" + cluster.nodes(), "spring.main.banner-mode=off",
                        "logging.level.root=warn", "delay.key-prefix=scale" + run + "p" + partitions,
                        "delay.queues." + QUEUE + ".partitions=" + partitions)
                .run()) {
            DelayPublisher publisher = app.getBean(DelayPublisher.class);
            // warm-up, not counted: the JIT and the connections of every master
            List<PublishRequest> warm = new ArrayList<>();
            for (int i = 0; i < 5_000; i++) {
                warm.add(PublishRequest.of("w" + i));
            }
            publisher.publishAll(QUEUE, warm);
            awaitHandled(warm.size());
            Handler.handled.set(0);

            double[] before = cpu(cluster);
            long start = System.nanoTime();
            // published due in 2 s, so that publishing and draining are timed apart
            List<PublishRequest> batch = new ArrayList<>();
            java.time.Instant due = java.time.Instant.now().plusSeconds(2);
            for (int i = 0; i < JOBS; i++) {
                batch.add(PublishRequest.of("x".repeat(90)).at(due));
                if (batch.size() == 500) {
                    publisher.publishAll(QUEUE, batch);
                    batch = new ArrayList<>();
                }
            }
            long published = System.nanoTime();
            while (java.time.Instant.now().isBefore(due)) {
                Thread.sleep(5);
            }
            long drainStart = System.nanoTime();
            awaitHandled(JOBS);
            long drained = System.nanoTime();
            double[] after = cpu(cluster);
            double total = 0;
            double busiest = 0;
            StringBuilder perMaster = new StringBuilder();
            for (int m = 0; m < after.length; m++) {
                double used = after[m] - before[m];
                total += used;
                busiest = Math.max(busiest, used);
                perMaster.append(m == 0 ? "" : " / ").append(String.format(Locale.ROOT, "%.2f", used));
            }
            return String.format(Locale.ROOT, "%,.0f | %,.0f | %s | %.1f | %.0f%%", JOBS / seconds(published - start),
                    JOBS / seconds(drained - drainStart), perMaster, total * 1e6 / JOBS, 100 * busiest / total);
        }
    }

    private static void awaitHandled(int count) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (Handler.handled.get() < count) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("only " + Handler.handled.get() + " of " + count + " jobs handled in 3 minutes");
            }
            Thread.sleep(2);
        }
    }

    private static double[] cpu(RedisCluster cluster) {
        List<RedisServerProcess> masters = cluster.masters();
        double[] seconds = new double[masters.size()];
        for (int m = 0; m < masters.size(); m++) {
            try (RespConnection c = new RespConnection(masters.get(m).host(), masters.get(m).port())) {
                String info = c.call("INFO", "cpu").toString();
                double used = 0;
                for (String line : info.split("\r\n")) {
                    if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
                        used += Double.parseDouble(line.substring(line.indexOf(':') + 1));
                    }
                }
                seconds[m] = used;
            }
        }
        return seconds;
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }
}
