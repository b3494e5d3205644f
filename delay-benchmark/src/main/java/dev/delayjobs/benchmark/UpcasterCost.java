package dev.delayjobs.benchmark;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

import com.sun.management.OperatingSystemMXBean;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayQueueControl;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.PayloadUpcaster;
import dev.delayjobs.PayloadVersion;
import dev.delayjobs.PublishRequest;
import dev.delayjobs.embeddedredis.RedisServerProcess;
import tools.jackson.databind.node.ObjectNode;

/**
 * What one upcaster in the chain costs a consumer: {@code -Djobs} (default 100,000) due jobs drained
 * by handlers that do nothing, once from a queue whose jobs are at the handler's version and once from
 * a queue whose jobs are one version older (one upcaster: a field renamed, one added), 3 runs in one
 * application on one Redis, the order of the two swapped every run so that neither always drains
 * second on a warmer JVM. Besides handled/s it gives the consumer JVM's CPU time per job (all its
 * threads), which a machine shared with other work disturbs less than the rate. Run with
 * {@code java -cp delay-benchmark/target/delay-benchmark.jar -Dloader.main=dev.delayjobs.benchmark.UpcasterCost org.springframework.boot.loader.launch.PropertiesLauncher}.
 */
public final class UpcasterCost {

    private static final int JOBS = Integer.getInteger("jobs", 100_000);

    record Current(long orderId, String customer, String currency, String note) {
    }

    record OrderV1(long orderId, String name, String note) {
    }

    @PayloadVersion(2)
    record Order(long orderId, String customer, String currency, String note) {
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class ConsumerApp {

        final AtomicInteger handled = new AtomicInteger();

        @DelayedHandler(queue = "plain")
        void plain(Current job) {
            handled.incrementAndGet();
        }

        @DelayedHandler(queue = "upcast")
        void upcast(Order job) {
            handled.incrementAndGet();
        }

        @Bean
        PayloadUpcaster orderFromV1() {
            return PayloadUpcaster.of(Order.class, 1, json -> {
                ObjectNode node = (ObjectNode) json;
                node.set("customer", node.remove("name"));
                return node.put("currency", "EUR");
            });
        }
    }

    public static void main(String[] args) throws InterruptedException {
        try (RedisServerProcess redis = RedisServerProcess.builder().binary(RedisServerProcess.onPath().orElse(null)).start();
                ConfigurableApplicationContext app = BenchmarkApps.consumer(ConsumerApp.class, redis, "upcast-cost")) {
            System.out.println("# upcaster cost: " + JOBS + " due jobs per run drained by no-op handlers, concurrency 8, "
                    + "Redis " + redis.address() + ", " + Runtime.getRuntime().availableProcessors() + " cores");
            System.out.println("| run | jobs at | handled/s | consumer CPU µs/job |");
            System.out.println("|---|---|---|---|");
            drain(app, "plain", i -> new Current(i, "Ada Lovelace", "EUR", "x".repeat(40))); // warm-up
            drain(app, "upcast", i -> new OrderV1(i, "Ada Lovelace", "x".repeat(40)));
            for (int run = 1; run <= 3; run++) {
                boolean upcastFirst = run % 2 == 0;
                for (int turn = 0; turn < 2; turn++) {
                    if ((turn == 0) == upcastFirst) {
                        Drained d = drain(app, "upcast", i -> new OrderV1(i, "Ada Lovelace", "x".repeat(40)));
                        System.out.printf("| %d | one version older (1 upcaster) | %,.0f | %.1f |%n", run, d.perSecond(), d.cpuMicrosPerJob());
                    }
                    else {
                        Drained d = drain(app, "plain", i -> new Current(i, "Ada Lovelace", "EUR", "x".repeat(40)));
                        System.out.printf("| %d | handler's version (no upcaster) | %,.0f | %.1f |%n", run, d.perSecond(), d.cpuMicrosPerJob());
                    }
                }
            }
        }
    }

    record Drained(double perSecond, double cpuMicrosPerJob) {
    }

    /**
     * Publishes the jobs to the paused queue, resumes it and returns the jobs handled per second until
     * the last, and this JVM's CPU time per job over the same span.
     */
    private static Drained drain(ConfigurableApplicationContext app, String queue,
            IntFunction<Object> payload) throws InterruptedException {
        DelayPublisher publisher = app.getBean(DelayPublisher.class);
        DelayQueueControl control = app.getBean(DelayQueueControl.class);
        AtomicInteger handled = app.getBean(ConsumerApp.class).handled;
        control.pause(queue);
        List<PublishRequest> batch = new ArrayList<>();
        for (int i = 0; i < JOBS; i++) {
            batch.add(PublishRequest.of(payload.apply(i)).delay(Duration.ZERO));
            if (batch.size() == 500) {
                publisher.publishAll(queue, batch);
                batch.clear();
            }
        }
        handled.set(0);
        OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpuStart = os.getProcessCpuTime();
        long start = System.nanoTime();
        control.resume(queue);
        while (handled.get() < JOBS) {
            Thread.sleep(1);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        return new Drained(JOBS / seconds, (os.getProcessCpuTime() - cpuStart) / 1e3 / JOBS);
    }
}
