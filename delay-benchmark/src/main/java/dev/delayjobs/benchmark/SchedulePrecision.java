package dev.delayjobs.benchmark;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.Recurring;
import dev.delayjobs.embeddedredis.RedisServerProcess;

/**
 * How late recurring ticks start, against Spring's {@code @Scheduled} in the same JVM, in the same
 * run: a {@code @Recurring} fixed rate of 1 s and a {@code @Recurring} cron of every second, beside
 * {@code @Scheduled(cron = "* * * * * *")} and {@code @Scheduled(fixedRate = 1000)}. Lateness is
 * when the method starts (the wall clock, in microseconds) minus the instant it was meant for: a
 * tick's due time; for the {@code @Scheduled} cron the whole second; for the {@code @Scheduled} fixed
 * rate, its first run plus whole seconds, shifted so that its least late run counts 0 (Spring does
 * not tell a run its instant, and its first run is late by the application's start: that row is a
 * lower bound, jitter rather than lateness). {@value #SECONDS} s per run after a 5 s warm-up, 3 runs,
 * each a fresh application on one Redis; with 60 ticks a run, p99 is the latest tick. Run with
 * {@code java -cp delay-benchmark/target/delay-benchmark.jar -Dloader.main=dev.delayjobs.benchmark.SchedulePrecision org.springframework.boot.loader.launch.PropertiesLauncher}.
 */
public final class SchedulePrecision {

    private static final int SECONDS = Integer.getInteger("precision.seconds", 60);
    private static final int RUNS = Integer.getInteger("precision.runs", 3);

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @EnableScheduling
    static class TicksApp {

        volatile boolean measuring;
        final List<Long> recurringRate = Collections.synchronizedList(new ArrayList<>());
        final List<Long> recurringCron = Collections.synchronizedList(new ArrayList<>());
        final List<Long> scheduledCron = Collections.synchronizedList(new ArrayList<>());
        final List<Long> scheduledRate = Collections.synchronizedList(new ArrayList<>());
        private long scheduledRateFirst;
        private long scheduledRateRuns;

        @DelayedHandler(queue = "precision-rate")
        @Recurring(name = "every-second-rate", fixedRate = "1s")
        void recurringRate(DelayedJob<Map<String, Object>> tick) {
            record(recurringRate, micros() - tick.dueAt().toEpochMilli() * 1000);
        }

        @DelayedHandler(queue = "precision-cron")
        @Recurring(name = "every-second-cron", cron = "* * * * * *")
        void recurringCron(DelayedJob<Map<String, Object>> tick) {
            record(recurringCron, micros() - tick.dueAt().toEpochMilli() * 1000);
        }

        @Scheduled(cron = "* * * * * *")
        void scheduledCron() {
            long now = micros();
            // the second it was meant for: the nearest whole second (a run a little early counts as early)
            long meant = Math.round(now / 1e6) * 1_000_000;
            record(scheduledCron, now - meant);
        }

        @Scheduled(fixedRate = 1000)
        synchronized void scheduledRate() {
            long now = micros();
            if (scheduledRateRuns++ == 0) {
                scheduledRateFirst = now;
            }
            long meant = scheduledRateFirst + (scheduledRateRuns - 1) * 1_000_000;
            record(scheduledRate, now - meant);
        }

        private void record(List<Long> into, long latenessMicros) {
            if (measuring) {
                into.add(latenessMicros);
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        try (RedisServerProcess redis = RedisServerProcess.builder().binary(RedisServerProcess.onPath().orElse(null)).start()) {
            System.out.println("# schedule precision: lateness of a method's start after its instant, microseconds; "
                    + SECONDS + " s per run, Redis " + redis.address() + ", " + Runtime.getRuntime().availableProcessors()
                    + " cores");
            System.out.println("| run | what | ticks | p50 | p99 | max | min |");
            System.out.println("|---|---|---|---|---|---|---|");
            for (int run = 1; run <= RUNS; run++) {
                try (ConfigurableApplicationContext app = new SpringApplicationBuilder(TicksApp.class)
                        .web(WebApplicationType.NONE)
                        .properties("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
                                "spring.main.banner-mode=off", "logging.level.root=warn",
                                "delay.key-prefix=precision-" + run)
                        .run()) {
                    TicksApp ticks = app.getBean(TicksApp.class);
                    Thread.sleep(5000);
                    ticks.measuring = true;
                    Thread.sleep(SECONDS * 1000L);
                    ticks.measuring = false;
                    print(run, "@Recurring fixedRate 1s", ticks.recurringRate);
                    print(run, "@Recurring cron every second", ticks.recurringCron);
                    print(run, "@Scheduled cron every second", ticks.scheduledCron);
                    long least;
                    synchronized (ticks.scheduledRate) {
                        least = ticks.scheduledRate.stream().mapToLong(Long::longValue).min().orElse(0);
                        ticks.scheduledRate.replaceAll(l -> l - least);
                    }
                    print(run, "@Scheduled fixedRate 1000 (after its least late run)", ticks.scheduledRate);
                }
            }
        }
    }

    private static void print(int run, String what, List<Long> lateness) {
        List<Long> sorted;
        synchronized (lateness) {
            sorted = new ArrayList<>(lateness);
        }
        Collections.sort(sorted);
        if (sorted.isEmpty()) {
            System.out.printf("| %d | %s | 0 | | | | |%n", run, what);
            return;
        }
        System.out.printf("| %d | %s | %d | %,d | %,d | %,d | %,d |%n", run, what, sorted.size(), at(sorted, 0.50),
                at(sorted, 0.99), sorted.get(sorted.size() - 1), sorted.get(0));
    }

    private static long at(List<Long> sorted, double quantile) {
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(quantile * sorted.size()) - 1));
    }

    private static long micros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1000;
    }
}
