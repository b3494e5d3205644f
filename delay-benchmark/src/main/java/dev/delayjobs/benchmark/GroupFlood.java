package dev.delayjobs.benchmark;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.PublishRequest;
import dev.delayjobs.embeddedredis.RedisServerProcess;

/**
 * The flood of issue 22: group A's {@code flood.a} jobs (200,000) all due at one instant, group B's
 * {@code flood.b} jobs (100) due 1 s later, one consumer (this JVM, 8 workers, no-op handlers). B's
 * lateness with groups against the same publish without groups (B waits behind A in one FIFO),
 * alternated {@code flood.runs} times (3) on one Redis. Run with
 * {@code java [-Dflood.a=200000] [-Dflood.runs=3] -cp delay-benchmark/target/delay-benchmark.jar
 * -Dloader.main=dev.delayjobs.benchmark.GroupFlood org.springframework.boot.loader.launch.PropertiesLauncher}.
 */
public final class GroupFlood {

    static final String GROUPED = "flood-grouped";
    static final String PLAIN = "flood-plain";

    /** The payload: which group the job stands for (B is the small one whose lateness counts). */
    record Flooded(boolean b) {
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class ConsumerApp {

        /** Lateness (handler start minus due time) of each B job of the phase, in µs. */
        final long[] bLateness = new long[1_000_000];
        final AtomicInteger bCount = new AtomicInteger();
        final AtomicInteger aCount = new AtomicInteger();
        final AtomicLong lastAStart = new AtomicLong();
        final AtomicLong lastBStart = new AtomicLong();

        @DelayedHandler(queue = GROUPED)
        void grouped(DelayedJob<Flooded> job) {
            record(job);
        }

        @DelayedHandler(queue = PLAIN)
        void plain(DelayedJob<Flooded> job) {
            record(job);
        }

        private void record(DelayedJob<Flooded> job) {
            Instant now = Instant.now();
            long nowMicros = now.getEpochSecond() * 1_000_000L + now.getNano() / 1000;
            if (job.payload().b()) {
                int i = bCount.getAndIncrement();
                if (i < bLateness.length) {
                    bLateness[i] = nowMicros - job.dueAt().toEpochMilli() * 1000;
                }
                lastBStart.accumulateAndGet(nowMicros, Math::max);
            }
            else {
                aCount.incrementAndGet();
                lastAStart.accumulateAndGet(nowMicros, Math::max);
            }
        }

        void reset() {
            bCount.set(0);
            aCount.set(0);
            lastAStart.set(0);
            lastBStart.set(0);
        }
    }

    public static void main(String[] args) throws Exception {
        int aJobs = Integer.getInteger("flood.a", 200_000);
        int bJobs = Integer.getInteger("flood.b", 100);
        int runs = Integer.getInteger("flood.runs", 3);
        try (RedisServerProcess redis = RedisServerProcess.builder().binary(RedisServerProcess.onPath().orElse(null)).start();
                RedisProbe probe = new RedisProbe(redis.host(), redis.port());
                ConfigurableApplicationContext app = BenchmarkApps.consumer(ConsumerApp.class, redis, "flood")) {
            System.out.println("# group flood: A " + aJobs + " jobs due at T, B " + bJobs + " due at T+1 s, one consumer"
                    + " JVM, concurrency 8, no-op handlers; Redis " + probe.version() + " (" + redis.binary() + "), "
                    + Runtime.getRuntime().availableProcessors() + " cores, Java " + System.getProperty("java.version"));
            System.out.println("| run | queue | B late p50 | B late p99 | B late max | B done after T | all transferred after T | A drained after T | delivered/s | publish s |");
            System.out.println("|---|---|---|---|---|---|---|---|---|---|");
            // warm-up, unreported: a tenth of the size through both queues
            phase(app, probe, GROUPED, aJobs / 10, bJobs);
            phase(app, probe, PLAIN, aJobs / 10, bJobs);
            for (int run = 1; run <= runs; run++) {
                // alternate which side goes first, so that a slow stretch of the machine hits both
                for (String queue : run % 2 == 1 ? List.of(GROUPED, PLAIN) : List.of(PLAIN, GROUPED)) {
                    System.out.println("| " + run + " | " + phase(app, probe, queue, aJobs, bJobs) + " |");
                }
            }
        }
        System.exit(0);
    }

    /** Publishes A and B ahead, waits for every job to be handled and returns the row's cells. */
    private static String phase(ConfigurableApplicationContext app, RedisProbe probe, String queue, int aJobs,
            int bJobs) throws Exception {
        DelayPublisher publisher = app.getBean(DelayPublisher.class);
        ConsumerApp consumer = app.getBean(ConsumerApp.class);
        consumer.reset();
        boolean grouped = queue.equals(GROUPED);
        // T leaves time to store every job first (250 µs a job, 10 s at least: the machine is shared)
        long publishStart = System.nanoTime();
        Instant due = Instant.now().plusMillis(Math.max(10_000, aJobs * 250L / 1000));
        Instant bDue = due.plusSeconds(1);
        publishAll(publisher, queue, aJobs, i -> PublishRequest.of(new Flooded(false)).at(due)
                .group(grouped ? "A" : null));
        publishAll(publisher, queue, bJobs, i -> PublishRequest.of(new Flooded(true)).at(bDue)
                .group(grouped ? "B" : null));
        double publishSeconds = (System.nanoTime() - publishStart) / 1e9;
        if (Instant.now().isAfter(due)) {
            throw new IllegalStateException("publishing took past T (" + publishSeconds + " s): raise the lead time");
        }
        long deadline = System.nanoTime() + 600_000_000_000L;
        // when the transfer has moved every job out of the delayed set (B's go last: due last)
        String delayed = "flood:{" + queue + "}:delayed";
        long transferredAt = 0;
        while (consumer.aCount.get() < aJobs || consumer.bCount.get() < bJobs) {
            if (transferredAt == 0 && probe.zcard(delayed) == 0) {
                transferredAt = System.currentTimeMillis();
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("not all handled in 10 min: A " + consumer.aCount + " B " + consumer.bCount);
            }
            Thread.sleep(transferredAt == 0 ? 2 : 5);
        }
        long tMicros = due.toEpochMilli() * 1000;
        long[] late = Arrays.copyOf(consumer.bLateness, bJobs);
        Arrays.sort(late);
        double aDrainedS = (consumer.lastAStart.get() - tMicros) / 1e6;
        return String.format("%s | %.1f ms | %.1f ms | %.1f ms | %.2f s | %.2f s | %.2f s | %,.0f | %.1f",
                grouped ? "groups A, B" : "no groups", at(late, 0.50) / 1000.0, at(late, 0.99) / 1000.0,
                late[late.length - 1] / 1000.0, (consumer.lastBStart.get() - tMicros) / 1e6,
                (transferredAt - due.toEpochMilli()) / 1000.0, aDrainedS,
                (aJobs + bJobs) / aDrainedS, publishSeconds);
    }

    private static long at(long[] sorted, double q) {
        int index = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    /** Publishes {@code count} requests with {@code publishAll} in lists of 500 from 4 threads. */
    static void publishAll(DelayPublisher publisher, String queue, int count,
            java.util.function.IntFunction<PublishRequest> request) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> calls = new ArrayList<>();
            for (int from = 0; from < count; from += 500) {
                int start = from;
                calls.add(threads.submit(() -> {
                    List<PublishRequest> batch = new ArrayList<>();
                    for (int i = start; i < Math.min(count, start + 500); i++) {
                        batch.add(request.apply(i));
                    }
                    publisher.publishAll(queue, batch);
                }));
            }
            for (Future<?> call : calls) {
                call.get();
            }
        }
        finally {
            threads.shutdown();
        }
    }
}
