package dev.delayjobs.benchmark;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.embeddedredis.RedisServerProcess;
import dev.delayjobs.schedule.DelaySchedules;
import dev.delayjobs.schedule.Misfire;
import dev.delayjobs.schedule.ScheduleSpec;

/**
 * The same-instant case of {@link ScheduleScale} ({@code -Dscale.burst=10000,50000}): N schedules on
 * one queue, all on the same daily cron second (UTC), created as fast as 8 threads can, the instant
 * {@code scale.burst-lead-seconds} (100) after the run starts; a no-op handler (concurrency 8) notes
 * per tick when it was published and how late it started. Per N, on a fresh Redis: how long before
 * (negative) or after its instant the last tick's job was published, the lateness of the handled
 * ticks (p50, p99, max), ticks handled twice or early, and the longest Redis calls
 * ({@code SLOWLOG}, calls over 1 ms, from the end of the creations to the last tick handled and the
 * index of ticks published ahead dropped).
 */
final class ScheduleBurst {

    private static final String QUEUE = "burst";
    private static final int LEAD_SECONDS = Integer.getInteger("scale.burst-lead-seconds", 100);

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class BurstApp {

        final Map<String, Integer> deliveries = new ConcurrentHashMap<>();
        final List<Long> latenessMs = Collections.synchronizedList(new ArrayList<>());
        final AtomicLong firstPublished = new AtomicLong(Long.MAX_VALUE);
        final AtomicLong lastPublished = new AtomicLong(Long.MIN_VALUE);
        final AtomicLong early = new AtomicLong();

        @DelayedHandler(queue = QUEUE, concurrency = "8")
        void tick(DelayedJob<Map<String, Object>> tick) {
            long now = System.currentTimeMillis();
            long due = tick.dueAt().toEpochMilli();
            if (now < due) {
                early.incrementAndGet();
            }
            latenessMs.add(now - due);
            firstPublished.accumulateAndGet(tick.publishedAt().toEpochMilli(), Math::min);
            lastPublished.accumulateAndGet(tick.publishedAt().toEpochMilli(), Math::max);
            deliveries.merge(tick.id(), 1, Integer::sum);
        }
    }

    private ScheduleBurst() {
    }

    static void run(int n) throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.builder().binary(RedisServerProcess.onPath().orElse(null)).start();
                RespClient resp = new RespClient(redis.host(), redis.port());
                ConfigurableApplicationContext app = new SpringApplicationBuilder(BurstApp.class)
                        .web(WebApplicationType.NONE)
                        .properties("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
                                "spring.main.banner-mode=off", "logging.level.root=warn", "delay.key-prefix=burst")
                        .run()) {
            DelaySchedules schedules = app.getBean(DelaySchedules.class);
            BurstApp ticks = app.getBean(BurstApp.class);
            long instant = (System.currentTimeMillis() / 1000 + LEAD_SECONDS) * 1000;
            ZonedDateTime at = Instant.ofEpochMilli(instant).atZone(ZoneOffset.UTC);
            ScheduleSpec daily = ScheduleSpec.cron(at.getSecond() + " " + at.getMinute() + " " + at.getHour() + " * * *",
                    ZoneOffset.UTC, Misfire.FIRE_ONE);
            long start = System.currentTimeMillis();
            ExecutorService creators = Executors.newFixedThreadPool(8);
            for (int t = 0; t < 8; t++) {
                int thread = t;
                creators.submit(() -> {
                    for (int i = thread; i < n; i += 8) {
                        schedules.create(QUEUE, "customer-" + i, daily, Map.of("customer", i));
                    }
                    return null;
                });
            }
            creators.shutdown();
            creators.awaitTermination(10, TimeUnit.MINUTES);
            long created = System.currentTimeMillis();

            resp.call("CONFIG", "SET", "slowlog-max-len", "100000");
            resp.call("CONFIG", "SET", "slowlog-log-slower-than", "1000");
            resp.call("SLOWLOG", "RESET");
            Map<String, ScheduleScale.ScriptTimes> byScript = new TreeMap<>();
            long deadline = instant + 180_000;
            while (System.currentTimeMillis() < deadline
                    && (ticks.deliveries.size() < n || System.currentTimeMillis() < instant + 5_000)) {
                Thread.sleep(1000);
                ScheduleScale.drainSlowlog(resp, byScript);
            }
            ScheduleScale.drainSlowlog(resp, byScript);
            // the index of ticks published ahead (when the build has one) is dropped by the timer's reads after the instant
            long indexedAt = System.currentTimeMillis();
            while (System.currentTimeMillis() < indexedAt + 180_000
                    && ((Long) resp.call("EXISTS", "burst:{burst}:schedule-ahead-due", "burst:{burst}:schedule-ahead")) > 0) {
                Thread.sleep(1000);
                ScheduleScale.drainSlowlog(resp, byScript);
            }
            long indexGone = System.currentTimeMillis();
            ScheduleScale.drainSlowlog(resp, byScript);

            List<Long> lateness = new ArrayList<>(ticks.latenessMs);
            Collections.sort(lateness);
            long twice = ticks.deliveries.values().stream().filter(d -> d > 1).count();
            System.out.printf("%n## burst N = %,d on one instant (%s UTC)%n", n, at.toLocalTime());
            System.out.printf("created in %.1f s, the last %.1f s before the instant%n", (created - start) / 1e3,
                    (instant - created) / 1e3);
            System.out.printf("handled %,d of %,d ticks (%,d twice, %,d early); published from %+,d ms to %+,d ms"
                    + " relative to the instant (last tick's job)%n", ticks.deliveries.size(), n, twice, ticks.early.get(),
                    ticks.firstPublished.get() - instant, ticks.lastPublished.get() - instant);
            System.out.printf("lateness of the handled ticks: p50 %,d ms, p99 %,d ms, max %,d ms%n",
                    ScheduleScale.at(lateness, 0.5), ScheduleScale.at(lateness, 0.99),
                    lateness.isEmpty() ? 0 : lateness.get(lateness.size() - 1));
            System.out.printf("index of ticks published ahead gone %.1f s after the instant%n", (indexGone - instant) / 1e3);
            System.out.println("calls over 1 ms (slow log, until the index was gone), per command: count, p99 µs, longest µs");
            byScript.forEach((name, t) -> {
                Collections.sort(t.each);
                System.out.printf("  %s: %,d, %,d, %,d%n", name, t.calls, ScheduleScale.at(t.each, 0.99), t.longest);
            });
        }
    }
}
