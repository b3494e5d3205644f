package dev.delayjobs.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

/** A JVM spreads a window's memos over as many buckets as its calls fill, one at least, 128 at most. */
class MemoBucketsTest {

    final SplittableRandom random = new SplittableRandom(7);

    @Test
    void aSteadyRateFillsAboutFortyEightMemosPerBucket() {
        MemoBuckets buckets = new MemoBuckets(RequestMemo.BUCKETS);
        calls(buckets, 0, 1_200);
        Map<Integer, Integer> next = calls(buckets, 1_000, 1_200);
        assertThat(next).hasSize(25); // 1,200 / 48
        assertThat(next.values()).allSatisfy(memos -> assertThat(memos).isBetween(20, 90));
    }

    @Test
    void aRiseWithinAWindowOpensMoreBucketsAsItsCallsCome() {
        MemoBuckets buckets = new MemoBuckets(RequestMemo.BUCKETS);
        Map<Integer, Integer> first = calls(buckets, 0, 1_200);
        assertThat(first.size()).isBetween(20, 25);
        // the first bucket takes the first 48, then a share of every later count: 48 x (1 + 1/2 + .. + 1/25), still a listpack
        assertThat(first.values()).allSatisfy(memos -> assertThat(memos).isLessThan(250));
    }

    @Test
    void aBusyJvmUsesEveryBucketAndAQuietOneASingleBucketPerWindow() {
        MemoBuckets busy = new MemoBuckets(RequestMemo.BUCKETS);
        calls(busy, 0, 20_000);
        assertThat(calls(busy, 1_000, 20_000)).hasSize(RequestMemo.BUCKETS);
        MemoBuckets quiet = new MemoBuckets(RequestMemo.BUCKETS);
        for (int window = 0; window < 5; window++) {
            assertThat(calls(quiet, window * 1_000L, 10)).hasSize(1);
        }
    }

    @Test
    void aGapForgetsTheRateBeforeIt() {
        MemoBuckets buckets = new MemoBuckets(RequestMemo.BUCKETS);
        calls(buckets, 0, 20_000);
        assertThat(calls(buckets, 5_000, 10)).hasSize(1);
    }

    @Test
    void eachWindowStartsAtABucketDrawnAnewSoThatJvmsSpreadOverAll() {
        MemoBuckets buckets = new MemoBuckets(RequestMemo.BUCKETS);
        Map<Integer, Integer> starts = new HashMap<>();
        for (int window = 0; window < 200; window++) {
            calls(buckets, window * 1_000L, 1).keySet().forEach(b -> starts.merge(b, 1, Integer::sum));
        }
        assertThat(starts.size()).isGreaterThan(64);
    }

    @Test
    void eachQueueCountsItsOwnCalls() {
        QueueKeys busy = new QueueKeys("p", "busy");
        QueueKeys quiet = new QueueKeys("p", "quiet");
        assertThat(MemoBuckets.ofPublishes(busy)).isSameAs(MemoBuckets.ofPublishes(new QueueKeys("p", "busy")));
        // these two names fall on different counters (a shared one would only open more buckets)
        assertThat(MemoBuckets.ofPublishes(busy)).isNotSameAs(MemoBuckets.ofPublishes(quiet));
        long window = 10_000_000;
        calls(MemoBuckets.ofPublishes(busy), window, 20_000);
        assertThat(calls(MemoBuckets.ofPublishes(quiet), window + 1_000, 10)).hasSize(1);
    }

    /** {@code count} calls sent within the window that begins at {@code windowStartMs}: memos per bucket used. */
    private Map<Integer, Integer> calls(MemoBuckets buckets, long windowStartMs, int count) {
        Map<Integer, Integer> memos = new HashMap<>();
        for (int i = 0; i < count; i++) {
            int bucket = buckets.next(windowStartMs + i * 999L / count, random);
            assertThat(bucket).isBetween(0, RequestMemo.BUCKETS - 1);
            memos.merge(bucket, 1, Integer::sum);
        }
        return memos;
    }
}
