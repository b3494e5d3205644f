package dev.delayjobs.benchmark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
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
 * What one upcaster in the chain costs a consumer: {@value #JOBS} due jobs drained by handlers that
 * do nothing, once from a queue whose jobs are at the handler's version and once from a queue whose
 * jobs are one version older (one upcaster: a field renamed, one added), alternated 3 times in one
 * application on one Redis. Run with
 * {@code java -cp delay-benchmark/target/delay-benchmark.jar -Dloader.main=dev.delayjobs.benchmark.UpcasterCost org.springframework.boot.loader.launch.PropertiesLauncher}.
 */
public final class UpcasterCost {

    private static final int JOBS = 20_000;

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
                ConfigurableApplicationContext app = new SpringApplicationBuilder(ConsumerApp.class)
                        .web(WebApplicationType.NONE)
                        .properties("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
                                "spring.main.banner-mode=off", "logging.level.root=warn", "delay.key-prefix=upcast-cost",
                                "delay.consumer.concurrency=8")
                        .run()) {
            System.out.println("# upcaster cost: " + JOBS + " due jobs per run drained by no-op handlers, concurrency 8, "
                    + "Redis " + redis.address() + ", " + Runtime.getRuntime().availableProcessors() + " cores");
            System.out.println("| run | jobs at | handled/s |");
            System.out.println("|---|---|---|");
            drain(app, "plain", i -> new Current(i, "Ada Lovelace", "EUR", "x".repeat(40))); // warm-up
            drain(app, "upcast", i -> new OrderV1(i, "Ada Lovelace", "x".repeat(40)));
            for (int run = 1; run <= 3; run++) {
                System.out.printf("| %d | handler's version (no upcaster) | %,.0f |%n", run,
                        drain(app, "plain", i -> new Current(i, "Ada Lovelace", "EUR", "x".repeat(40))));
                System.out.printf("| %d | one version older (1 upcaster) | %,.0f |%n", run,
                        drain(app, "upcast", i -> new OrderV1(i, "Ada Lovelace", "x".repeat(40))));
            }
        }
    }

    /** Publishes the jobs to the paused queue, resumes it and returns the jobs handled per second until the last. */
    private static double drain(ConfigurableApplicationContext app, String queue,
            java.util.function.IntFunction<Object> payload) throws InterruptedException {
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
        long start = System.nanoTime();
        control.resume(queue);
        while (handled.get() < JOBS) {
            Thread.sleep(1);
        }
        return JOBS / ((System.nanoTime() - start) / 1e9);
    }
}
