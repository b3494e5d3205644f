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

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.embeddedredis.RedisServerProcess;

/**
 * What the request memos of single publishes cost Redis at a sustained rate: {@value #JOBS} jobs
 * (100-byte payloads, due in 1 h) published one call each at {@value #RATE}/s from
 * {@value #THREADS} threads, so every memo is still live when the last is written. {@code used_memory}
 * growth is read then (memos live) and again once every memo key has expired (jobs alone). Redis is
 * the bundled one, or the one {@code -Ddelay.test.redis-server} names. Run with
 * {@code java -cp delay-benchmark/target/delay-benchmark.jar -Dloader.main=dev.delayjobs.benchmark.RequestMemoCost org.springframework.boot.loader.launch.PropertiesLauncher}.
 */
public final class RequestMemoCost {

    private static final int JOBS = Integer.getInteger("memo.jobs", 100_000);
    private static final int RATE = Integer.getInteger("memo.rate", 3_300);
    private static final int THREADS = 8;

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class PublisherApp {
    }

    public static void main(String[] args) throws InterruptedException {
        try (RedisServerProcess redis = RedisServerProcess.start(); RespClient resp = new RespClient(redis.host(), redis.port());
                ConfigurableApplicationContext app = new SpringApplicationBuilder(PublisherApp.class)
                        .web(WebApplicationType.NONE)
                        .properties("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
                                "spring.main.banner-mode=off", "logging.level.root=warn", "delay.key-prefix=memo-cost")
                        .run()) {
            DelayPublisher publisher = app.getBean(DelayPublisher.class);
            String payload = "x".repeat(98); // "xxx...", 100 bytes of JSON
            publisher.publish("warm-up", payload, Duration.ofHours(1));
            waitForNoMemo(resp);
            long before = usedMemory(resp);
            long start = System.nanoTime();
            AtomicInteger next = new AtomicInteger();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                Thread thread = new Thread(() -> {
                    for (int i = next.getAndIncrement(); i < JOBS; i = next.getAndIncrement()) {
                        while (Pace.dueBy(start, RATE, JOBS) <= i) {
                            Pace.sleepMs(1);
                        }
                        publisher.publish("memo", payload, Duration.ofHours(1));
                    }
                });
                thread.start();
                threads.add(thread);
            }
            for (Thread thread : threads) {
                thread.join();
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            long withMemos = usedMemory(resp);
            long memoKeys = memoKeys(resp);
            long[] memos = memos(resp);
            long waited = waitForNoMemo(resp);
            long jobsOnly = usedMemory(resp);
            System.out.printf("# request memo cost: Redis %s, %,d single publishes in %.1f s (%,.0f/s), 100-byte payloads%n",
                    resp.text("INFO", "server").lines().filter(l -> l.startsWith("redis_version:")).findFirst().orElse("?").trim(),
                    JOBS, seconds, JOBS / seconds);
            System.out.println("| figure | value |");
            System.out.println("|---|---|");
            System.out.printf("| memo keys when the last publish returned | %,d |%n", memoKeys);
            System.out.printf("| memos then (longest TTL %,d ms) | %,d |%n", memos[1], memos[0]);
            System.out.printf("| bytes per pending job, memos live | %.0f |%n", (withMemos - before) / (double) JOBS);
            System.out.printf("| bytes per pending job, memos expired (%d s later) | %.0f |%n", waited / 1000, (jobsOnly - before) / (double) JOBS);
            System.out.printf("| bytes per memo | %.1f |%n", (withMemos - jobsOnly) / (double) memos[0]);
        }
    }

    private static long usedMemory(RespClient resp) {
        return resp.text("INFO", "memory").lines().filter(l -> l.startsWith("used_memory:")).findFirst()
                .map(l -> Long.parseLong(l.substring("used_memory:".length()).trim())).orElseThrow();
    }

    /** Memo keys now ({@code *req:*}). */
    private static long memoKeys(RespClient resp) {
        return memoKeyNames(resp).size();
    }

    private static List<String> memoKeyNames(RespClient resp) {
        List<String> keys = new ArrayList<>();
        String cursor = "0";
        do {
            List<?> reply = (List<?>) resp.call("SCAN", cursor, "MATCH", "*req:*", "COUNT", "10000");
            cursor = reply.get(0).toString();
            ((List<?>) reply.get(1)).forEach(key -> keys.add(key.toString()));
        }
        while (!cursor.equals("0"));
        return keys;
    }

    /** Memos now: a string key each (before buckets), or the fields of the bucket hashes; and the longest TTL. */
    private static long[] memos(RespClient resp) {
        long memos = 0;
        long longestTtl = 0;
        for (String key : memoKeyNames(resp)) {
            memos += "hash".equals(resp.text("TYPE", key)) ? ((Number) resp.call("HLEN", key)).longValue() : 1;
            longestTtl = Math.max(longestTtl, ((Number) resp.call("PTTL", key)).longValue());
        }
        return new long[] { memos, longestTtl };
    }

    /** Waits until every memo key has expired and been deleted; returns the ms waited. */
    private static long waitForNoMemo(RespClient resp) {
        long start = System.nanoTime();
        while (memoKeys(resp) > 0) {
            Pace.sleepMs(1000);
        }
        return (System.nanoTime() - start) / 1_000_000;
    }
}
