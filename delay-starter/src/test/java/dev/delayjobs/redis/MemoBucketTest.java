package dev.delayjobs.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RScript;
import org.redisson.api.RScript.Mode;
import org.redisson.api.RScript.ReturnType;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import dev.delayjobs.test.TestRedis;

/**
 * Request memos are fields of bucket hashes, a few per send-time second (_memo.lua): every copy of
 * a request finds its memo for the memo's whole lifetime, whatever was written to its bucket since
 * and whichever window the client is in now; buckets go once their memos may, leaving no key; and
 * a memo costs a fraction of the key with a TTL it used to be.
 */
class MemoBucketTest {

    static final RedissonClient redisson = TestRedis.sharedClient();
    RScript script;
    QueueKeys k;
    String prefix;

    @BeforeEach
    void newPrefix() {
        prefix = TestRedis.uniquePrefix();
        k = new QueueKeys(prefix, "q");
        script = redisson.getScript(StringCodec.INSTANCE);
    }

    @Test
    void aCopyOfARequestSentInTheLastMsOfAWindowFindsItsMemoOnceTheNextWindowBegan() {
        long nextWindow = (System.currentTimeMillis() / RequestMemo.BUCKET_WINDOW_MS + 1) * RequestMemo.BUCKET_WINDOW_MS;
        RequestMemo.Request late = RequestMemo.Request.draw("p", RequestMemo.BUCKETS, nextWindow - 1);
        RequestMemo.Request next = RequestMemo.Request.draw("p", RequestMemo.BUCKETS, nextWindow);
        assertThat(k.request(late)).isNotEqualTo(k.request(next));

        assertThat(publish(LuaScript.load(Script.PUBLISH), late, "a")).containsExactly(1L);
        assertThat(publish(LuaScript.load(Script.PUBLISH), next, "b")).containsExactly(1L);
        // the copy Redisson resent of the first: created, not KEPT_EXISTING (which a second run would answer)
        assertThat(publish(LuaScript.load(Script.PUBLISH), late, "a")).containsExactly(1L);
        assertThat(redisson.getMap(k.jobs(), StringCodec.INSTANCE).size()).isEqualTo(2);
    }

    @Test
    void aShorterMemoWrittenLaterNeverShortensTheLongerMemosOfItsBucket() {
        // a publish that waits for replicas has a longer memo than the cancel after it
        RequestMemo.Request confirmed = RequestMemo.Request.draw("p", 1, System.currentTimeMillis());
        RequestMemo.Request cancel = new RequestMemo.Request(confirmed.bucket(), "cancel-1");
        publish(LuaScript.load(Script.PUBLISH).withMemo(60_000), confirmed, "a");
        LuaScript.load(Script.CANCEL).withMemo(2_000).<Long>run(script, Mode.READ_WRITE, ReturnType.LONG,
                k.of(k.jobs(), k.delayed(), k.dead(), k.errors(), k.request(cancel), k.successors(), k.claims(), k.groups()), "b",
                cancel.field());

        assertThat(redisson.getBucket(k.request(confirmed)).remainTimeToLive()).isGreaterThan(55_000);
        assertThat(redisson.getMap(k.request(confirmed), StringCodec.INSTANCE).keySet()).containsOnly(confirmed.field(), "cancel-1");
    }

    @Test
    void everyWriteLeavesItsBucketAtLeastTheMemoLifetimeAndTheBucketGoesOnceItsLastMemoMay() {
        long memoMs = 1_500;
        LuaScript shortLived = LuaScript.load(Script.PUBLISH).withMemo(memoMs);
        RequestMemo.Request first = RequestMemo.Request.draw("p", 1, System.currentTimeMillis());
        for (int i = 0; i < 8; i++) {
            RequestMemo.Request request = new RequestMemo.Request(first.bucket(), "r" + i);
            long sent = System.nanoTime();
            publish(shortLived, request, "j" + i);
            long ttl = redisson.getBucket(k.request(request)).remainTimeToLive();
            long elapsedMs = (System.nanoTime() - sent) / 1_000_000 + 1;
            // Redis's time from the write to the PTTL is within the client's from sending the one to reading the other
            assertThat(ttl).as("write %d", i).isGreaterThanOrEqualTo(memoMs - elapsedMs);
            // the copy of the write before finds its memo: 1 (created), not 0 (kept)
            if (i > 0) {
                assertThat(publish(shortLived, new RequestMemo.Request(first.bucket(), "r" + (i - 1)), "j" + (i - 1))).containsExactly(1L);
            }
            sleep(300);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> memoKeys().isEmpty());
        assertThat(redisson.getMap(k.jobs(), StringCodec.INSTANCE).size()).isEqualTo(8);
    }

    @Test
    void aMemoOfABusySecondCostsAFractionOfAKeyWithATtl() {
        long now = System.currentTimeMillis();
        int calls = 2_000;
        for (int i = 0; i < calls; i++) {
            publish(LuaScript.load(Script.PUBLISH), RequestMemo.Request.draw("p", RequestMemo.BUCKETS, now), "j" + i);
        }
        List<String> buckets = memoKeys();
        long bytes = 0;
        for (String bucket : buckets) {
            Object encoding = redisson.getScript(StringCodec.INSTANCE).eval(Mode.READ_ONLY,
                    "return redis.call('OBJECT', 'ENCODING', KEYS[1])", ReturnType.VALUE, List.of(bucket));
            assertThat(encoding).as(bucket).isIn("listpack", "ziplist");
            bytes += redisson.getScript(StringCodec.INSTANCE).<Long>eval(Mode.READ_ONLY,
                    "return redis.call('MEMORY', 'USAGE', KEYS[1], 'SAMPLES', '0')", ReturnType.LONG, List.of(bucket));
        }
        assertThat(buckets).hasSizeLessThanOrEqualTo(RequestMemo.BUCKETS);
        // a memo of its own was a key with a TTL: MEMORY USAGE ~70 bytes, ~125-150 in used_memory
        assertThat(bytes / (double) calls).as("bytes per memo").isLessThan(30);
    }

    @Test
    void aSecondOfOneThousandTwoHundredCallsFillsTwentyFiveBucketsAtUnderTwentyTwoBytesAMemo() {
        // issue 26: 128 buckets for any rate left ~10 memos in each at this rate, a key (~130 bytes) per 10 memos
        MemoBuckets buckets = new MemoBuckets(RequestMemo.BUCKETS);
        long window = (System.currentTimeMillis() / RequestMemo.BUCKET_WINDOW_MS) * RequestMemo.BUCKET_WINDOW_MS;
        int calls = 1_200;
        for (int i = 0; i < calls; i++) {
            RequestMemo.request(buckets, window - RequestMemo.BUCKET_WINDOW_MS + i * 999L / calls); // the window before: a steady rate
        }
        for (int i = 0; i < calls; i++) {
            publish(LuaScript.load(Script.PUBLISH), RequestMemo.request(buckets, window + i * 999L / calls), "j" + i);
        }
        List<String> used = memoKeys();
        long bytes = 0;
        for (String bucket : used) {
            bytes += redisson.getScript(StringCodec.INSTANCE).<Long>eval(Mode.READ_ONLY,
                    "return redis.call('MEMORY', 'USAGE', KEYS[1], 'SAMPLES', '0')", ReturnType.LONG, List.of(bucket));
        }
        assertThat(bytes / (double) calls).as("bytes per memo").isLessThan(22);
        assertThat(used).hasSize(calls / MemoBuckets.PER_BUCKET);
    }

    @Test
    void aBatchWhoseJobsWereAllCreatedLeavesItsBucketCompactAndItsCopyAnswersEachCreated() {
        // issue 26: the statuses of 1,000 jobs in MessagePack (1,003 bytes) turned the bucket into a hash table
        RequestMemo.Request request = RequestMemo.Request.draw("p", 1, System.currentTimeMillis());
        RequestMemo.Request single = new RequestMemo.Request(request.bucket(), "single");
        publish(LuaScript.load(Script.PUBLISH), single, "s");
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            ids.add("j" + i);
        }
        List<Object> first = publishBatch(request, ids, "0");
        assertThat(first).hasSize(1_000).containsOnly(1L);

        assertThat(redisson.getScript(StringCodec.INSTANCE).<Object>eval(Mode.READ_ONLY,
                "return redis.call('OBJECT', 'ENCODING', KEYS[1])", ReturnType.VALUE, List.of(k.request(request))))
                .isIn("listpack", "ziplist");
        // the copies Redisson resent: each job created, not kept (which a second run would answer)
        assertThat(publishBatch(request, ids, "0")).isEqualTo(first);
        assertThat(publish(LuaScript.load(Script.PUBLISH), single, "s")).containsExactly(1L);
        assertThat(redisson.getMap(k.jobs(), StringCodec.INSTANCE).size()).isEqualTo(1_001);
    }

    @Test
    void aBatchThatKeptAJobRemembersEachStatus() {
        publish(LuaScript.load(Script.PUBLISH), RequestMemo.Request.draw("p", 1, System.currentTimeMillis()), "a");
        RequestMemo.Request request = RequestMemo.Request.draw("p", 1, System.currentTimeMillis());
        assertThat(publishBatch(request, List.of("a", "b"), "0")).containsExactly(0L, 1L);
        // a second run would answer 0, 0
        assertThat(publishBatch(request, List.of("a", "b"), "0")).containsExactly(0L, 1L);
    }

    /** One publish call of {@code ids}, each due in 60 s, replace {@code replace} ('0' keep an existing job). */
    private List<Object> publishBatch(RequestMemo.Request request, List<String> ids, String replace) {
        List<Object> keys = k.of(k.jobs(), k.delayed(), k.ready(), k.stats(), k.dead(), k.errors(), k.request(request),
                k.control(), k.successors(), k.claims(), k.groups(), k.groupsReady(), k.groupHeld());
        List<Object> args = new ArrayList<>(List.of(k.wakeChannel(), Integer.toString(ids.size()), "1"));
        for (String id : ids) {
            args.addAll(List.of(id, "d" + replace, "1aao" /* 60000 ms, base 36 */, "1"));
        }
        args.add(request.field());
        return LuaScript.load(Script.PUBLISH).run(script, Mode.READ_WRITE, ReturnType.LIST, keys, args.toArray());
    }

    private List<Object> publish(LuaScript publish, RequestMemo.Request request, String id) {
        List<Object> keys = k.of(k.jobs(), k.delayed(), k.ready(), k.stats(), k.dead(), k.errors(), k.request(request),
                k.control(), k.successors(), k.claims(), k.groups(), k.groupsReady(), k.groupHeld());
        return publish.run(script, Mode.READ_WRITE, ReturnType.LIST, keys, k.wakeChannel(), "1", "1", id, "d0", "1aao" /* 60000 ms, base 36 */, "1",
                request.field());
    }

    private List<String> memoKeys() {
        return new ArrayList<>(redisson.getKeys().getKeysStreamByPattern(prefix + ":*req:*").toList());
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new AssertionError(ex);
        }
    }
}
