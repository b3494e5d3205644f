package dev.delayjobs.benchmark;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.PublishRequest;
import dev.delayjobs.embeddedredis.RedisServerProcess;

/**
 * What groups cost: {@code cost.jobs} jobs (100,000) published ahead, all due at one instant, drained by one consumer (this JVM, 8 workers, no-op handlers), from a queue without
 * groups and from queues whose jobs are spread round-robin over 1, 100 and 10,000 groups. Each
 * queue's phase reports the delivered rate (all jobs over the time from the due instant to the last
 * handler start) and Redis CPU per job ({@code INFO cpu}, sys + user, from the first publish to the
 * last ack: publish, transfer, claim and ack) with the script time per job ({@code INFO
 * commandstats}). The four are alternated {@code cost.runs} times (3), the order rotated each run.
 * Run with {@code java -cp delay-benchmark/target/delay-benchmark.jar
 * -Dloader.main=dev.delayjobs.benchmark.GroupCost org.springframework.boot.loader.launch.PropertiesLauncher}.
 */
public final class GroupCost {

    /** Queue name -> groups its jobs are spread over (0: no group). */
    private static final List<String> QUEUES = List.of("ungrouped", "groups-1", "groups-100", "groups-10000");

    record Job(int n) {
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class ConsumerApp {

        final AtomicInteger handled = new AtomicInteger();
        volatile long lastStartNanos;

        @DelayedHandler(queue = "ungrouped")
        void ungrouped(Job job) {
            record();
        }

        @DelayedHandler(queue = "groups-1")
        void groups1(Job job) {
            record();
        }

        @DelayedHandler(queue = "groups-100")
        void groups100(Job job) {
            record();
        }

        @DelayedHandler(queue = "groups-10000")
        void groups10000(Job job) {
            record();
        }

        private void record() {
            lastStartNanos = System.nanoTime();
            handled.incrementAndGet();
        }
    }

    public static void main(String[] args) throws Exception {
        int jobs = Integer.getInteger("cost.jobs", 100_000);
        int runs = Integer.getInteger("cost.runs", 3);
        try (RedisServerProcess redis = RedisServerProcess.builder().binary(RedisServerProcess.onPath().orElse(null)).start();
                RedisProbe probe = new RedisProbe(redis.host(), redis.port());
                ConfigurableApplicationContext app = BenchmarkApps.consumer(ConsumerApp.class, redis, "cost")) {
            System.out.println("# group cost: " + jobs + " jobs due at one instant per phase, one consumer JVM, "
                    + "concurrency 8, no-op handlers; Redis " + probe.version() + " (" + redis.binary() + "), "
                    + Runtime.getRuntime().availableProcessors() + " cores, Java " + System.getProperty("java.version"));
            System.out.println("| run | queue | delivered/s | Redis CPU µs/job | script µs/job | Redis cmds/job |");
            System.out.println("|---|---|---|---|---|---|");
            for (String queue : QUEUES) {
                phase(app, probe, queue, jobs / 10); // warm-up, unreported
            }
            for (int run = 1; run <= runs; run++) {
                for (int i = 0; i < QUEUES.size(); i++) {
                    String queue = QUEUES.get((i + run - 1) % QUEUES.size());
                    System.out.println("| " + run + " | " + queue + " | " + phase(app, probe, queue, jobs) + " |");
                }
            }
        }
        System.exit(0);
    }

    private static String phase(ConfigurableApplicationContext app, RedisProbe probe, String queue, int jobs)
            throws Exception {
        DelayPublisher publisher = app.getBean(DelayPublisher.class);
        ConsumerApp consumer = app.getBean(ConsumerApp.class);
        int groups = queue.equals("ungrouped") ? 0 : Integer.parseInt(queue.substring("groups-".length()));
        consumer.handled.set(0);
        RedisProbe.Snapshot before = probe.snapshot();
        // time to store every job first (150 µs a job, 5 s at least: the machine is shared)
        Instant due = Instant.now().plusMillis(Math.max(5_000, jobs * 150L / 1000));
        GroupFlood.publishAll(publisher, queue, jobs, i -> PublishRequest.of(new Job(i)).at(due)
                .group(groups == 0 ? null : "g-" + (i % groups)));
        if (Instant.now().isAfter(due)) {
            throw new IllegalStateException("publishing took past the due time: raise the lead time");
        }
        long deadline = System.nanoTime() + 600_000_000_000L;
        while (consumer.handled.get() < jobs) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("not all handled in 10 min: " + consumer.handled);
            }
            Thread.sleep(5);
        }
        long dueNanos = System.nanoTime() - (Instant.now().toEpochMilli() - due.toEpochMilli()) * 1_000_000L;
        double drainSeconds = (consumer.lastStartNanos - dueNanos) / 1e9;
        Thread.sleep(500); // the last acks
        RedisProbe.Snapshot after = probe.snapshot();
        return String.format("%,.0f | %.1f | %.1f | %.1f", jobs / drainSeconds,
                (after.cpuSeconds() - before.cpuSeconds()) * 1e6 / jobs,
                (after.scriptUsec() - before.scriptUsec()) / (double) jobs,
                (after.calls() - before.calls()) / (double) jobs);
    }
}
