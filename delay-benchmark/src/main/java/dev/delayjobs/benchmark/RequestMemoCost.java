package dev.delayjobs.benchmark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

import org.redisson.api.RDelayedQueue;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

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
 * the bundled one, or the one {@code -Ddelay.test.redis-server} names. Where the bytes go: {@code MEMORY USAGE}
 * of each kind of key (jobs hash, delayed set, memo buckets) per job, with the keys' encodings. The
 * anchor, Redisson's {@code RDelayedQueue}, then publishes as many 100-character elements at the same
 * rate into the same (flushed) Redis, its {@code used_memory} growth per element printed beside
 * ({@code -Dmemo.anchor=false} leaves it out). Run with
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
            paced(i -> publisher.publish("memo", payload, Duration.ofHours(1)));
            double seconds = (System.nanoTime() - start) / 1e9;
            long withMemos = usedMemory(resp);
            long memoKeys = memoKeys(resp);
            long[] memos = memos(resp);
            Map<String, long[]> byKind = bytesByKind(resp);
            long waited = waitForNoMemo(resp);
            long jobsOnly = usedMemory(resp);
            double anchor = Boolean.parseBoolean(System.getProperty("memo.anchor", "true"))
                    ? anchorBytesPerJob(resp, app.getBean(RedissonClient.class)) : Double.NaN;
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
            System.out.printf("| anchor (RDelayedQueue), bytes per pending element, same rate | %.0f |%n", anchor);
            System.out.printf("| starter / anchor, memos live | %.2f |%n", (withMemos - before) / (double) JOBS / anchor);
            System.out.println();
            System.out.println("| keys (memos live) | keys | encoding | MEMORY USAGE per job |");
            System.out.println("|---|---|---|---|");
            byKind.forEach((kind, v) -> System.out.printf("| %s | %,d | %s | %.1f |%n", kind, v[0],
                    encodings.getOrDefault(kind, "?"), v[1] / (double) JOBS));
        }
    }

    private static final Map<String, String> encodings = new TreeMap<>();

    /** Per kind of key under the prefix (its name with the queue and bucket parts cut off): keys and MEMORY USAGE. */
    private static Map<String, long[]> bytesByKind(RespClient resp) {
        Map<String, long[]> byKind = new TreeMap<>();
        String cursor = "0";
        do {
            List<?> reply = (List<?>) resp.call("SCAN", cursor, "MATCH", "memo-cost*", "COUNT", "10000");
            cursor = reply.get(0).toString();
            for (Object name : (List<?>) reply.get(1)) {
                String key = name.toString();
                String kind = key.contains(":req:p:") ? "req:p:<s>:<n> (memo buckets)"
                        : key.contains(":delayed:\u0002") ? "delayed:\\2<n> (pages)" : key.substring(key.lastIndexOf(':') + 1);
                long[] v = byKind.computeIfAbsent(kind, x -> new long[2]);
                v[0]++;
                v[1] += ((Number) resp.call("MEMORY", "USAGE", key, "SAMPLES", "0")).longValue();
                encodings.merge(kind, resp.text("OBJECT", "ENCODING", key), (a, b) -> a.contains(b) ? a : a + "/" + b);
            }
        }
        while (!cursor.equals("0"));
        return byKind;
    }

    /** RDelayedQueue: JOBS elements of 100 characters, due in 1 h, offered at RATE/s from THREADS threads; used_memory growth per element. */
    @SuppressWarnings("deprecation")
    private static double anchorBytesPerJob(RespClient resp, RedissonClient redisson) throws InterruptedException {
        resp.call("FLUSHALL");
        Pace.sleepMs(200);
        RDelayedQueue<String> queue = redisson.getDelayedQueue(redisson.getBlockingQueue("anchor", StringCodec.INSTANCE));
        long before = usedMemory(resp);
        paced(i -> {
            String head = System.currentTimeMillis() + 3_600_000 + ":" + i + ":";
            queue.offer(head + "y".repeat(100 - head.length()), 1, TimeUnit.HOURS);
        });
        double bytes = (usedMemory(resp) - before) / (double) JOBS;
        queue.destroy();
        return bytes;
    }

    /** Calls {@code call} with 0 to JOBS - 1 from THREADS threads, at RATE calls a second in all; returns when all returned. */
    private static void paced(IntConsumer call) throws InterruptedException {
        long start = System.nanoTime();
        AtomicInteger next = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            Thread thread = new Thread(() -> {
                for (int i = next.getAndIncrement(); i < JOBS; i = next.getAndIncrement()) {
                    while (Pace.dueBy(start, RATE, JOBS) <= i) {
                        Pace.sleepMs(1);
                    }
                    call.accept(i);
                }
            });
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join();
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
