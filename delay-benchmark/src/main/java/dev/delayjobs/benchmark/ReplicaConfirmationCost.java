package dev.delayjobs.benchmark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.embeddedredis.RedisServerProcess;

/**
 * What {@code delay.publisher.confirm-replicas=1} costs a publisher: single publishes from 8
 * threads for 10 s against a master with one replica on the same machine, without and with the
 * confirmation, alternated 3 times. Run with
 * {@code java -cp delay-benchmark/target/delay-benchmark.jar -Dloader.main=dev.delayjobs.benchmark.ReplicaConfirmationCost org.springframework.boot.loader.launch.PropertiesLauncher}.
 */
public final class ReplicaConfirmationCost {

    private static final int THREADS = 8;
    private static final Duration RUN = Duration.ofSeconds(10);

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class PublisherApp {
    }

    public static void main(String[] args) throws InterruptedException {
        try (RedisServerProcess master = RedisServerProcess.builder().binary(RedisServerProcess.onPath().orElse(null)).start();
                RedisServerProcess replica = RedisServerProcess.builder().binary(RedisServerProcess.onPath().orElse(null))
                        .args("--replicaof", master.host(), Integer.toString(master.port())).start()) {
            System.out.println("# replica confirmation cost: master " + master.address() + ", replica " + replica.address()
                    + ", " + THREADS + " threads, " + RUN.toSeconds() + " s per run, single publishes, 100-byte payloads");
            System.out.println("| run | confirm-replicas | publishes/s | p50 ms | p99 ms |");
            System.out.println("|---|---|---|---|---|");
            for (int run = 1; run <= 3; run++) {
                for (int replicas : new int[] { 0, 1 }) {
                    System.out.println("| " + run + " | " + replicas + " | " + measure(master, replicas) + " |");
                }
            }
        }
    }

    private static String measure(RedisServerProcess master, int replicas) throws InterruptedException {
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(PublisherApp.class)
                .web(WebApplicationType.NONE)
                .properties("spring.data.redis.host=" + master.host(), "spring.data.redis.port=" + master.port(),
                        "spring.main.banner-mode=off", "logging.level.root=warn",
                        "delay.key-prefix=cost" + replicas + System.nanoTime(), "delay.publisher.confirm-replicas=" + replicas)
                .run()) {
            DelayPublisher publisher = app.getBean(DelayPublisher.class);
            String payload = "x".repeat(90);
            for (int i = 0; i < 2000; i++) {
                publisher.publish("cost", payload, Duration.ofHours(1)); // warm-up
            }
            AtomicBoolean running = new AtomicBoolean(true);
            List<long[]> latencies = new ArrayList<>();
            List<int[]> counts = new ArrayList<>();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                long[] mine = new long[2_000_000];
                int[] count = new int[1];
                latencies.add(mine);
                counts.add(count);
                Thread thread = new Thread(() -> {
                    while (running.get() && count[0] < mine.length) {
                        long start = System.nanoTime();
                        publisher.publish("cost", payload, Duration.ofHours(1));
                        mine[count[0]++] = System.nanoTime() - start;
                    }
                });
                threads.add(thread);
            }
            long start = System.nanoTime();
            threads.forEach(Thread::start);
            Thread.sleep(RUN.toMillis());
            running.set(false);
            for (Thread thread : threads) {
                thread.join();
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            int total = counts.stream().mapToInt(c -> c[0]).sum();
            long[] all = new long[total];
            int at = 0;
            for (int t = 0; t < THREADS; t++) {
                System.arraycopy(latencies.get(t), 0, all, at, counts.get(t)[0]);
                at += counts.get(t)[0];
            }
            Arrays.sort(all);
            return String.format("%,.0f | %.2f | %.2f", total / seconds, all[total / 2] / 1e6, all[(int) (total * 0.99)] / 1e6);
        }
    }
}
