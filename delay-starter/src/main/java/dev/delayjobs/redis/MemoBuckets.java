package dev.delayjobs.redis;

import java.util.random.RandomGenerator;

/**
 * Which memo bucket of its send-time window a request goes to (RequestMemo.Request): this JVM
 * spreads a window's requests over as many buckets as its calls need to hold about
 * {@link #PER_BUCKET} memos each, up to {@code most}. A bucket is a key of its own (~130 bytes
 * with its TTL), so at 1,200 calls a second 128 buckets cost more than the memos in them (~10
 * each); 25 hold ~48 each, as many as 128 do at 6,000 calls a second. The count follows the
 * calls of the window before (a steady rate) or of this one so far (a rise), whichever is more.
 *
 * <p>Each queue partition counts its own calls (its buckets are its own keys): a JVM that publishes
 * 1,200 calls a second over ten queues fills 3 buckets of each, not 25. Partitions share the
 * counters of a fixed table by their jobs key's hash; two that meet count both's calls, which only
 * opens more buckets.
 *
 * <p>Only the client chooses: every copy of a request carries the bucket its first send drew, so
 * the choice never decides whether a copy finds its memo. Each window starts at a bucket drawn
 * anew, so that several JVMs of one queue spread over the buckets instead of filling the first ones.
 */
final class MemoBuckets {

    /** Memos a bucket is meant to hold from one JVM's window: each call scans its bucket's listpack twice. */
    static final int PER_BUCKET = 48;

    private static final MemoBuckets[] PUBLISHES = new MemoBuckets[64];

    static {
        for (int i = 0; i < PUBLISHES.length; i++) {
            PUBLISHES[i] = new MemoBuckets(RequestMemo.BUCKETS);
        }
    }

    private final int most;
    private long window = Long.MIN_VALUE;
    /** Calls in the window just before {@link #window}, 0 when there was a gap. */
    private int callsBefore;
    private int calls;
    private int first;

    MemoBuckets(int most) {
        this.most = most;
    }

    /** The counter of the publishes and cancels of the queue partition whose keys are {@code k}. */
    static MemoBuckets ofPublishes(QueueKeys k) {
        return PUBLISHES[Math.floorMod(k.jobs().hashCode(), PUBLISHES.length)];
    }

    /** The bucket (0 .. most - 1) of a request sent at {@code nowMs}. */
    synchronized int next(long nowMs, RandomGenerator random) {
        long current = nowMs / RequestMemo.BUCKET_WINDOW_MS;
        if (current != window) {
            callsBefore = current == window + 1 ? calls : 0;
            calls = 0;
            window = current;
            first = random.nextInt(most);
        }
        calls++;
        int used = Math.min(most, (Math.max(calls, callsBefore) + PER_BUCKET - 1) / PER_BUCKET);
        return (first + random.nextInt(used)) % most;
    }
}
