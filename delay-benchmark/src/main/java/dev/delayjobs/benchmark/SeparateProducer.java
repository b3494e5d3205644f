package dev.delayjobs.benchmark;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.redisson.api.RDelayedQueue;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.benchmark.ColdConsumer.NumberedJob;

/**
 * The producer JVM of {@link SeparateJvmBenchmark}: one publish call per job from 4 threads. The
 * starter's producer is a Spring Boot application with the starter, publishing through
 * {@link DelayPublisher}; the anchor's offers through {@code RDelayedQueue} (whose transfer timer
 * then runs here too, as in an application that offers). It warms up as a producer that has been
 * running does: {@code bench.producer-warm-up} publishes (20,000) to another queue, due in an hour,
 * from its 4 threads at full speed (with 2,000 from one thread the measured run's first seconds
 * were the JIT's: 4.4-5.7 s of the producer's CPU in a 20 s run went to compiling); then it says
 * {@code @@ready}, and on {@code go} publishes:
 * {@code --bench.mode=rate}: {@code bench.rate} jobs/s for {@code bench.seconds}, delays uniform in
 * 100..1100 ms; {@code burst}: {@code bench.jobs} jobs all due at the same instant,
 * {@code bench.lead-ms} after {@code go}. Then it says
 * {@code @@published <jobs> <failed> <seconds> <last due epoch ms> <now epoch ms>} and runs until
 * {@code stop}. {@code warm N} publishes a burst of N jobs due in 1 s (numbered from
 * {@link #WARM_UP_NUMBERS}), to warm a consumer up before the measured publishing; {@code burst N
 * FIRST LEAD_MS} publishes a burst of N jobs numbered from FIRST, due LEAD_MS from now (a second
 * measured burst).
 */
public final class SeparateProducer {

    static final int THREADS = 4;
    static final int MIN_DELAY_MS = 100;
    static final int MAX_DELAY_MS = 1100;
    /** Jobs of a warm-up burst ({@code warm N}) are numbered from here, so figures can leave them out. */
    static final int WARM_UP_NUMBERS = 1_000_000;

    private SeparateProducer() {
    }

    /** Publishes job {@code n} due at {@code dueEpochMs} ({@code delayMs} from now, when not 0). */
    private interface Publish {

        void delayed(int n, long delayMs);

        void at(int n, long dueEpochMs);
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class StarterProducerApp {
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        boolean starter = ColdConsumer.arg(args, "engine").equals("starter");
        String queue = ColdConsumer.arg(args, "queue");
        Class<?> app = starter ? StarterProducerApp.class : ColdConsumer.RedissonOnlyApp.class;
        ConfigurableApplicationContext context = new SpringApplicationBuilder(app).web(WebApplicationType.NONE).run(args);
        Publish toQueue = starter ? starter(context.getBean(DelayPublisher.class), queue) : anchor(context.getBean(RedissonClient.class), queue);
        Publish toWarmUp = starter ? starter(context.getBean(DelayPublisher.class), "warm-up") : anchor(context.getBean(RedissonClient.class), queue + "-warm-up");
        warmUp(toWarmUp, Integer.parseInt(ColdConsumer.arg(args, "producer-warm-up")));
        ChildJvm.say("ready");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.equals("go")) {
                if (ColdConsumer.arg(args, "mode").equals("rate")) {
                    atRate(toQueue, Integer.parseInt(ColdConsumer.arg(args, "rate")), Integer.parseInt(ColdConsumer.arg(args, "seconds")),
                            Long.parseLong(ColdConsumer.arg(args, "seed")));
                }
                else {
                    burst(toQueue, 0, Integer.parseInt(ColdConsumer.arg(args, "jobs")), Long.parseLong(ColdConsumer.arg(args, "lead-ms")));
                }
            }
            else if (line.startsWith("burst ")) {
                String[] words = line.split(" ");
                burst(toQueue, Integer.parseInt(words[2]), Integer.parseInt(words[1]), Long.parseLong(words[3]));
            }
            else if (line.startsWith("warm ")) {
                burst(toQueue, WARM_UP_NUMBERS, Integer.parseInt(line.substring(5)), 1000);
            }
            else if (line.equals("stop")) {
                break;
            }
        }
        context.close();
        System.exit(0);
    }

    private static Publish starter(DelayPublisher publisher, String queue) {
        String padding = "x".repeat(80);
        return new Publish() {

            @Override
            public void delayed(int n, long delayMs) {
                publisher.publish(queue, new NumberedJob(n, padding), Duration.ofMillis(delayMs));
            }

            @Override
            public void at(int n, long dueEpochMs) {
                publisher.publishAt(queue, new NumberedJob(n, padding), Instant.ofEpochMilli(dueEpochMs));
            }
        };
    }

    @SuppressWarnings("deprecation")
    private static Publish anchor(RedissonClient redisson, String queue) {
        RDelayedQueue<String> delayed = redisson.getDelayedQueue(redisson.getBlockingQueue(queue, StringCodec.INSTANCE));
        return new Publish() {

            @Override
            public void delayed(int n, long delayMs) {
                // the due time goes into the element before offer() reads the clock: never later than the queue's own
                delayed.offer(ColdConsumer.anchorElement(System.currentTimeMillis() + delayMs, n), delayMs, TimeUnit.MILLISECONDS);
            }

            @Override
            public void at(int n, long dueEpochMs) {
                long delayMs = Math.max(0, dueEpochMs - System.currentTimeMillis());
                delayed.offer(ColdConsumer.anchorElement(dueEpochMs, n), delayMs, TimeUnit.MILLISECONDS);
            }
        };
    }

    /** {@code jobs} publishes due in an hour, from {@link #THREADS} threads at full speed; nothing reported. */
    private static void warmUp(Publish publish, int jobs) throws InterruptedException {
        onThreads("producer-warm-up-", jobs, System.nanoTime(), (thread, i, startNanos) -> publish.delayed(i, Duration.ofHours(1).toMillis()));
    }

    /** {@code rate} jobs/s for {@code seconds}: job i is sent at start + i / rate (absolute pacing), by thread i % 4. */
    private static void atRate(Publish publish, int rate, int seconds, long seed) throws InterruptedException {
        int total = rate * seconds;
        long[] delays = new SplittableRandom(seed).longs(total, MIN_DELAY_MS, MAX_DELAY_MS + 1).toArray();
        long[] lastDue = new long[THREADS];
        sendAll(total, lastDue, (thread, i, startNanos) -> {
            long wait = startNanos + (long) (i * 1e9 / rate) - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            publish.delayed(i, delays[i]);
            lastDue[thread] = Math.max(lastDue[thread], System.currentTimeMillis() + delays[i]);
        });
    }

    /** {@code jobs} jobs numbered from {@code first}, due {@code leadMs} from now, all at the same millisecond. */
    private static void burst(Publish publish, int firstNumber, int jobs, long leadMs) throws InterruptedException {
        long due = System.currentTimeMillis() + leadMs;
        sendAll(jobs, new long[] { due }, (thread, i, startNanos) -> publish.at(firstNumber + i, due));
    }

    /** Sends one job of a run; a RuntimeException counts as a failed publish. */
    private interface JobSender {

        void send(int thread, int job, long startNanos);
    }

    /**
     * Sends jobs 0 to {@code jobs - 1} from {@link #THREADS} threads (thread t sends t, t + THREADS,
     * ...), then reports how many were published, how long it took and the latest due time.
     */
    private static void sendAll(int jobs, long[] lastDue, JobSender sender) throws InterruptedException {
        AtomicInteger failed = new AtomicInteger();
        long start = System.nanoTime();
        onThreads("producer-", jobs, start, (thread, i, startNanos) -> {
            try {
                sender.send(thread, i, startNanos);
            }
            catch (RuntimeException ex) {
                failed.incrementAndGet();
            }
        });
        double seconds = (System.nanoTime() - start) / 1e9;
        long last = 0;
        for (long due : lastDue) {
            last = Math.max(last, due);
        }
        ChildJvm.say("published " + (jobs - failed.get()) + " " + failed.get() + " " + seconds + " " + last + " "
                + System.currentTimeMillis());
        if (failed.get() > 0) {
            System.err.println(failed.get() + " publishes failed");
        }
    }

    /** Jobs 0 to {@code jobs - 1} from {@link #THREADS} threads named {@code name} + t (thread t sends t, t + THREADS, ...); returns once all are sent. */
    private static void onThreads(String name, int jobs, long startNanos, JobSender sender) throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            threads.add(new Thread(() -> {
                for (int i = thread; i < jobs; i += THREADS) {
                    sender.send(thread, i, startNanos);
                }
            }, name + t));
        }
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            thread.join();
        }
    }
}
