package dev.delayjobs.benchmark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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
 * What many dynamic schedules cost Redis: N schedules ticking every minute (a fixed rate of 60 s,
 * created at an even pace over one minute, so their ticks spread over it as customers' schedules
 * do), on one queue handled by a no-op handler in the same application. Per N, on a fresh Redis:
 * memory per schedule ({@code used_memory} before and after creating them), then over
 * {@value #WINDOW_SECONDS} s of steady ticking, how late ticks started; in its first half, with the
 * slow log off, Redis CPU per tick ({@code INFO cpu}, everything the server did, the tick jobs'
 * transfer, claim and ack included); in its second half each script's time per call from
 * {@code SLOWLOG} with {@code slowlog-log-slower-than 0} (read and reset every second), and the
 * longest call. Sizes: {@code -Dscale.sizes=5000,50000}. With {@code -Dscale.burst=10000,50000}, the
 * same-instant scenario instead ({@link ScheduleBurst}). Run with
 * {@code java -cp delay-benchmark/target/delay-benchmark.jar -Dloader.main=dev.delayjobs.benchmark.ScheduleScale org.springframework.boot.loader.launch.PropertiesLauncher}.
 */
public final class ScheduleScale {

    private static final int WINDOW_SECONDS = Integer.getInteger("scale.window-seconds", 120);
    private static final String QUEUE = "scale";

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class ScaleApp {

        final AtomicLong handled = new AtomicLong();
        final List<Long> latenessMs = Collections.synchronizedList(new ArrayList<>());
        volatile boolean measuring;

        @DelayedHandler(queue = QUEUE, concurrency = "8")
        void tick(DelayedJob<Map<String, Object>> tick) {
            if (measuring) {
                handled.incrementAndGet();
                latenessMs.add(System.currentTimeMillis() - tick.dueAt().toEpochMilli());
            }
        }
    }

    /** Per script: calls, total and longest time in Redis (microseconds), and each call's time. */
    static final class ScriptTimes {
        long calls;
        long micros;
        long longest;
        final List<Long> each = new ArrayList<>();
    }

    /** A call over 5 ms: when (unix seconds), what, how long, its argument count (tick.lua: 6 per schedule). */
    private record SlowCall(long second, String name, long micros, int args) {
    }

    private static final List<SlowCall> OVER_5_MS = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        if (System.getProperty("scale.burst") != null) {
            for (String size : System.getProperty("scale.burst").split(",")) {
                ScheduleBurst.run(Integer.parseInt(size.strip()));
            }
            return;
        }
        String[] sizes = System.getProperty("scale.sizes", "5000,50000").split(",");
        System.out.println("# schedule scale: N schedules every minute on one queue, " + WINDOW_SECONDS + " s measured, "
                + Runtime.getRuntime().availableProcessors() + " cores");
        for (String size : sizes) {
            run(Integer.parseInt(size.strip()));
        }
    }

    private static void run(int n) throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.builder().binary(RedisServerProcess.onPath().orElse(null)).start();
                RespClient resp = new RespClient(redis.host(), redis.port());
                ConfigurableApplicationContext app = new SpringApplicationBuilder(ScaleApp.class)
                        .web(WebApplicationType.NONE)
                        .properties("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
                                "spring.main.banner-mode=off", "logging.level.root=warn", "delay.key-prefix=scale")
                        .run()) {
            RedisProbe probe = new RedisProbe(redis.host(), redis.port());
            DelaySchedules schedules = app.getBean(DelaySchedules.class);
            ScaleApp ticks = app.getBean(ScaleApp.class);
            ScheduleSpec everyMinute = ScheduleSpec.fixedRate(Duration.ofMinutes(1), Misfire.FIRE_ONE);
            Thread.sleep(2000);
            long before = probe.usedMemory();
            // created at an even pace over a minute, from 4 threads
            long start = System.nanoTime();
            ExecutorService creators = Executors.newFixedThreadPool(4);
            for (int t = 0; t < 4; t++) {
                int thread = t;
                creators.submit(() -> {
                    for (int i = thread; i < n; i += 4) {
                        long at = start + (long) (60e9 * i / n);
                        long wait = at - System.nanoTime();
                        if (wait > 0) {
                            TimeUnit.NANOSECONDS.sleep(wait);
                        }
                        schedules.create(QUEUE, "customer-" + i, everyMinute, Map.of("customer", i));
                    }
                    return null;
                });
            }
            creators.shutdown();
            creators.awaitTermination(10, TimeUnit.MINUTES);
            double createdIn = (System.nanoTime() - start) / 1e9;
            long after = probe.usedMemory();
            // the first ticks come a minute after each creation: wait for the second minute's steady state
            Thread.sleep(Math.max(0, (long) (70_000 - (System.nanoTime() - start) / 1e6)));

            // first half: Redis CPU with the slow log off (logging every call costs CPU of its own)
            resp.call("CONFIG", "SET", "slowlog-log-slower-than", "-1");
            long half = WINDOW_SECONDS * 500_000_000L;
            double cpuBefore = probe.cpuSeconds();
            long handledBefore = ticks.handled.get();
            ticks.measuring = true;
            Thread.sleep(half / 1_000_000);
            double cpu = probe.cpuSeconds() - cpuBefore;
            long cpuTicks = ticks.handled.get() - handledBefore;
            // second half: every call in the slow log, read and reset every second
            resp.call("CONFIG", "SET", "slowlog-max-len", "100000");
            resp.call("CONFIG", "SET", "slowlog-log-slower-than", "0");
            resp.call("SLOWLOG", "RESET");
            Map<String, ScriptTimes> byScript = new TreeMap<>();
            long logHandledBefore = ticks.handled.get();
            long windowEnd = System.nanoTime() + half;
            while (System.nanoTime() < windowEnd) {
                Thread.sleep(1000);
                drainSlowlog(resp, byScript);
            }
            ticks.measuring = false;
            drainSlowlog(resp, byScript);
            long logTicks = ticks.handled.get() - logHandledBefore;
            resp.call("CONFIG", "SET", "slowlog-log-slower-than", "10000");

            long handled = ticks.handled.get();
            List<Long> lateness = new ArrayList<>(ticks.latenessMs);
            Collections.sort(lateness);
            ScriptTimes longest = new ScriptTimes();
            String longestName = "";
            for (Map.Entry<String, ScriptTimes> e : byScript.entrySet()) {
                if (e.getValue().longest > longest.longest) {
                    longest = e.getValue();
                    longestName = e.getKey();
                }
            }
            System.out.printf("%n## N = %,d (Redis %s)%n", n, probe.version());
            System.out.printf("created in %.1f s; memory per schedule %,d bytes (used_memory %,d -> %,d)%n", createdIn,
                    (after - before) / n, before, after);
            System.out.printf("in %d s: %,d ticks handled (%.0f/s); tick lateness p50 %d ms, p99 %d ms, max %d ms%n",
                    WINDOW_SECONDS, handled, handled / (double) WINDOW_SECONDS, at(lateness, 0.5), at(lateness, 0.99),
                    lateness.isEmpty() ? 0 : lateness.get(lateness.size() - 1));
            System.out.printf("first half, slow log off: Redis CPU %.2f s for %,d ticks: %.1f µs per tick, every command"
                    + " of the server (the tick jobs' transfer, claim and ack included)%n", cpu, cpuTicks, cpu * 1e6 / cpuTicks);
            System.out.printf("second half, every call logged: %,d ticks; longest call %,d µs (%s)%n", logTicks, longest.longest,
                    longestName);
            System.out.println("| script | calls | µs per call | µs per tick | p99 µs | longest µs |");
            System.out.println("|---|---|---|---|---|---|");
            // the commands a script runs are logged as well (Redis 7.0): only the scripts are listed
            byScript.forEach((name, t) -> {
                if (name.startsWith("evalsha")) {
                    Collections.sort(t.each);
                    System.out.printf("| %s | %,d | %.1f | %.2f | %,d | %,d |%n", name, t.calls, t.micros / (double) t.calls,
                            t.micros / (double) logTicks, at(t.each, 0.99), t.longest);
                }
            });
            // a call over 5 ms beside others in the same second points at the machine (Redis descheduled), not the script
            System.out.println("calls over 5 ms (second, command, µs, arguments logged; all commands logged that second over 5 ms): "
                    + OVER_5_MS.stream().map(c -> c.second() + " " + c.name() + " " + c.micros() + " " + c.args() + " "
                            + OVER_5_MS.stream().filter(o -> o.second() == c.second()).count()).toList());
            OVER_5_MS.clear();
            probe.close();
        }
    }

    static void drainSlowlog(RespClient resp, Map<String, ScriptTimes> byScript) {
        @SuppressWarnings("unchecked")
        List<Object> entries = (List<Object>) resp.call("SLOWLOG", "GET", "-1");
        resp.call("SLOWLOG", "RESET");
        for (Object e : entries) {
            List<?> entry = (List<?>) e;
            long usec = (Long) entry.get(2);
            List<?> args = (List<?>) entry.get(3);
            String command = args.isEmpty() ? "" : args.get(0).toString().toLowerCase();
            if (command.equals("slowlog") || command.equals("info") || command.equals("config")) {
                continue;
            }
            String name = command.equals("evalsha") && args.size() > 1 ? Scripts.name("evalsha:" + args.get(1)) : command;
            ScriptTimes t = byScript.computeIfAbsent(name, k -> new ScriptTimes());
            t.calls++;
            t.micros += usec;
            t.longest = Math.max(t.longest, usec);
            t.each.add(usec);
            if (usec > 5000) {
                // the argument count as logged: Redis keeps at most 32 arguments of an entry
                OVER_5_MS.add(new SlowCall((Long) entry.get(1), name, usec, args.size()));
            }
        }
    }

    static long at(List<Long> sorted, double quantile) {
        return sorted.isEmpty() ? 0 : sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(quantile * sorted.size()) - 1));
    }
}
