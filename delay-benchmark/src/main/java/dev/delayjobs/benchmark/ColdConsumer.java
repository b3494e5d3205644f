package dev.delayjobs.benchmark;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.redisson.api.RBlockingQueue;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;

/**
 * The consumer JVM of {@link SeparateJvmBenchmark}, started fresh for every measured run. With
 * {@code --bench.engine=starter}: a Spring Boot application with the starter and one
 * {@code @DelayedHandler(queue = "bench", concurrency = "8")}. With {@code anchor}: a Spring Boot
 * application with Redisson only, an {@code RDelayedQueue} open on the queue (so its transfer timer
 * runs here, as users wire it) and 8 threads in {@code take()}. Handlers only record
 * ({@link Deliveries}). Says {@code @@ready}, then {@code @@count N} as jobs arrive; on
 * {@code stop} it writes {@code --bench.out} and says {@code @@done <gc ms> <jit ms>}.
 */
public final class ColdConsumer {

    static final String STARTER_QUEUE = "bench";
    static final int CONCURRENCY = 8;

    private ColdConsumer() {
    }

    /** The starter's consumer: the starter's auto-configuration and the handler. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class StarterConsumerApp {

        @Bean
        JobRecorder jobRecorder() {
            return new JobRecorder();
        }
    }

    /** The anchor's JVMs: Redisson's Spring Boot auto-configuration, the starter's left out. */
    @SpringBootConfiguration
    @EnableAutoConfiguration(excludeName = { "dev.delayjobs.autoconfigure.DelayAutoConfiguration",
            "dev.delayjobs.autoconfigure.DelayActuatorAutoConfiguration",
            "dev.delayjobs.autoconfigure.DelayMetricsAutoConfiguration",
            "dev.delayjobs.autoconfigure.DelayBackedOffAutoConfiguration",
            "dev.delayjobs.autoconfigure.DelayDashboardAutoConfiguration",
            "dev.delayjobs.autoconfigure.DelayBridgeAutoConfiguration" })
    static class RedissonOnlyApp {
    }

    /** The job the starter carries: its number and padding to about 100 bytes of JSON. */
    public record NumberedJob(int n, String data) {
    }

    static final class JobRecorder {

        @DelayedHandler(queue = STARTER_QUEUE, concurrency = "8")
        void handle(DelayedJob<NumberedJob> job) {
            Deliveries.record(job.payload().n(), job.dueAt().toEpochMilli());
        }
    }

    public static void main(String[] args) throws IOException {
        boolean starter = arg(args, "engine").equals("starter");
        Deliveries.allocate(Integer.parseInt(arg(args, "capacity")));
        Class<?> app = starter ? StarterConsumerApp.class : RedissonOnlyApp.class;
        ConfigurableApplicationContext context = new SpringApplicationBuilder(app).web(WebApplicationType.NONE).run(args);
        Environment env = context.getEnvironment();
        List<Thread> takers = starter ? List.of() : startTakers(context, env.getRequiredProperty("bench.queue"));
        Thread progress = new Thread(ColdConsumer::reportProgress, "progress");
        progress.setDaemon(true);
        progress.start();
        ChildJvm.say("ready");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null && !line.equals("stop")) {
            // only "stop" is understood
        }
        Deliveries.write(Path.of(env.getRequiredProperty("bench.out")));
        long gcMs = ManagementFactory.getGarbageCollectorMXBeans().stream().mapToLong(GarbageCollectorMXBean::getCollectionTime).sum();
        long jitMs = ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
        ChildJvm.say("done " + gcMs + " " + jitMs);
        takers.forEach(Thread::interrupt);
        context.close();
        System.exit(0);
    }

    /** The value of {@code --bench.<name>=...} among the program arguments, before Spring reads them. */
    static String arg(String[] args, String name) {
        String prefix = "--bench." + name + "=";
        for (String arg : args) {
            if (arg.startsWith(prefix)) {
                return arg.substring(prefix.length());
            }
        }
        throw new IllegalArgumentException(prefix + "... is required");
    }

    @SuppressWarnings("deprecation")
    private static List<Thread> startTakers(ConfigurableApplicationContext context, String queue) {
        RedissonClient redisson = context.getBean(RedissonClient.class);
        RBlockingQueue<String> destination = redisson.getBlockingQueue(queue, StringCodec.INSTANCE);
        RDelayedQueue<String> delayed = redisson.getDelayedQueue(destination);
        List<Thread> takers = new ArrayList<>();
        for (int i = 0; i < CONCURRENCY; i++) {
            Thread taker = new Thread(() -> take(destination), "anchor-consumer-" + i);
            taker.setDaemon(true);
            taker.start();
            takers.add(taker);
        }
        // held by the context, so the transfer timer lives as long as the application
        context.getBeanFactory().registerSingleton("benchDelayedQueue", delayed);
        return takers;
    }

    private static void take(RBlockingQueue<String> destination) {
        while (!Thread.currentThread().isInterrupted()) {
            try {
                String element = destination.take();
                int colon = element.indexOf(':');
                Deliveries.record(Integer.parseInt(element.substring(colon + 1, element.indexOf(':', colon + 1))),
                        Long.parseLong(element.substring(0, colon)));
            }
            catch (InterruptedException ex) {
                return;
            }
            catch (RuntimeException ex) {
                if (!Thread.currentThread().isInterrupted()) {
                    System.err.println("take failed: " + ex);
                    Pace.sleepMs(100);
                }
            }
        }
    }

    /** The anchor's element: due time (epoch ms), job number, padding to 100 characters. */
    static String anchorElement(long dueEpochMs, int n) {
        String head = dueEpochMs + ":" + n + ":";
        return head + "y".repeat(Math.max(0, 100 - head.length()));
    }

    private static void reportProgress() {
        int reported = -1;
        while (true) {
            int count = Deliveries.count();
            if (count != reported) {
                ChildJvm.say("count " + count);
                reported = count;
            }
            Pace.sleepMs(100);
        }
    }
}
