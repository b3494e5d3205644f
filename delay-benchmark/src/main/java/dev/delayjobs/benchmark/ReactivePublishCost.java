package dev.delayjobs.benchmark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.ReactiveDelayPublisher;
import dev.delayjobs.embeddedredis.RedisServerProcess;

/**
 * The reactive publisher against the blocking one, same application, same Redis, same run: 64
 * concurrent callers publish single jobs (100-byte payloads, due in an hour) for 10 s each way. The
 * blocking callers are 64 threads; the reactive callers are 64 chains of subscriptions, each
 * publishing its next job when the last one completed (so 64 publishes are always in flight), on
 * no thread of their own. Latency is from the call (subscription) to its return (completion).
 * Run with {@code java -cp delay-benchmark/target/delay-benchmark.jar
 * -Dloader.main=dev.delayjobs.benchmark.ReactivePublishCost org.springframework.boot.loader.launch.PropertiesLauncher}.
 */
public final class ReactivePublishCost {

    private static final int CALLERS = 64;
    private static final Duration RUN = Duration.ofSeconds(10);
    private static final String PAYLOAD = "x".repeat(90);

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class PublisherApp {
    }

    public static void main(String[] args) throws InterruptedException {
        try (RedisServerProcess redis = RedisServerProcess.builder().binary(RedisServerProcess.onPath().orElse(null)).start();
                ConfigurableApplicationContext app = new SpringApplicationBuilder(PublisherApp.class)
                        .web(WebApplicationType.NONE)
                        .properties("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
                                "spring.main.banner-mode=off", "logging.level.root=warn", "delay.key-prefix=reactive-cost")
                        .run()) {
            DelayPublisher blocking = app.getBean(DelayPublisher.class);
            ReactiveDelayPublisher reactive = app.getBean(ReactiveDelayPublisher.class);
            System.out.println("# reactive vs blocking publisher: Redis " + redis.binary() + " at " + redis.address() + ", "
                    + Runtime.getRuntime().availableProcessors() + " CPUs, " + CALLERS + " concurrent callers, "
                    + RUN.toSeconds() + " s each, single publishes, 100-byte payloads");
            for (int i = 0; i < 2000; i++) {
                blocking.publish("cost", PAYLOAD, Duration.ofHours(1)); // warm-up
                reactive.publish("cost", PAYLOAD, Duration.ofHours(1)).block();
            }
            System.out.println("| publisher | publishes/s | p50 ms | p99 ms |");
            System.out.println("|---|---|---|---|");
            System.out.println("| blocking | " + blocking(blocking) + " |");
            System.out.println("| reactive | " + reactive(reactive) + " |");
        }
    }

    private static String blocking(DelayPublisher publisher) throws InterruptedException {
        Latencies latencies = new Latencies();
        AtomicBoolean running = new AtomicBoolean(true);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < CALLERS; t++) {
            threads.add(new Thread(() -> {
                while (running.get()) {
                    long start = System.nanoTime();
                    publisher.publish("cost", PAYLOAD, Duration.ofHours(1));
                    latencies.add(System.nanoTime() - start);
                }
            }));
        }
        long start = System.nanoTime();
        threads.forEach(Thread::start);
        Thread.sleep(RUN.toMillis());
        running.set(false);
        for (Thread thread : threads) {
            thread.join();
        }
        return latencies.figures(System.nanoTime() - start);
    }

    private static String reactive(ReactiveDelayPublisher publisher) throws InterruptedException {
        Latencies latencies = new Latencies();
        AtomicBoolean running = new AtomicBoolean(true);
        CountDownLatch stopped = new CountDownLatch(CALLERS);
        long start = System.nanoTime();
        for (int c = 0; c < CALLERS; c++) {
            next(publisher, latencies, running, stopped);
        }
        Thread.sleep(RUN.toMillis());
        running.set(false);
        if (!stopped.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("reactive callers did not finish");
        }
        return latencies.figures(System.nanoTime() - start);
    }

    /** One caller's next publish, subscribed when its last one completed. */
    private static void next(ReactiveDelayPublisher publisher, Latencies latencies, AtomicBoolean running, CountDownLatch stopped) {
        if (!running.get()) {
            stopped.countDown();
            return;
        }
        long start = System.nanoTime();
        publisher.publish("cost", PAYLOAD, Duration.ofHours(1)).subscribe(id -> latencies.add(System.nanoTime() - start),
                failure -> {
                    failure.printStackTrace();
                    stopped.countDown();
                }, () -> next(publisher, latencies, running, stopped));
    }

    /** Call latencies in ns, from many threads. */
    private static final class Latencies {

        private final long[] samples = new long[8_000_000];
        private final AtomicInteger count = new AtomicInteger();

        void add(long nanos) {
            int at = count.getAndIncrement();
            if (at < samples.length) {
                samples[at] = nanos;
            }
        }

        String figures(long elapsedNanos) {
            int total = Math.min(count.get(), samples.length);
            long[] all = Arrays.copyOf(samples, total);
            Arrays.sort(all);
            return String.format("%,.0f | %.2f | %.2f", count.get() / (elapsedNanos / 1e9), all[total / 2] / 1e6,
                    all[(int) (total * 0.99)] / 1e6);
        }
    }
}
