package dev.delayjobs.redis;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.ThreadLocalRandom;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.BaseConfig;
import org.redisson.config.Config;
import org.redisson.config.ConstantDelay;
import org.redisson.config.DecorrelatedJitterDelay;
import org.redisson.config.DelayStrategy;
import org.redisson.config.EqualJitterDelay;
import org.redisson.config.FullJitterDelay;

/**
 * How long the memo of a publish, claim or cancel request lives ({@code MEMO_MS} in
 * {@code _memo.lua}): long enough that every copy Redisson may resend of the request finds the
 * memo of the copy that ran first, instead of running again.
 *
 * <p>Redisson (4.x) resends a command whose reply did not come within {@code timeout} (for a batch
 * that waits for replicas, plus that wait), after the {@code retryDelay} of the attempt, up to
 * {@code retryAttempts} times; each attempt may also wait up to its retry delay for a connection and
 * for the write. So every copy is sent within the <em>resend window</em> of the first:
 * <pre>
 *   sum over attempts a = 0 .. n-1 of (delay(a) + timeout + delay(a)), plus delay(n)
 * </pre>
 * where {@code delay(a)} is the longest retry delay of attempt {@code a} (the cap of a jittered
 * strategy). Redisson's defaults (3 s, 4 attempts, equal jitter from 1 s to 2 s) give 28 s. The memo
 * lives that window plus {@link #STALL_MARGIN}: a copy that waits in the network or in a stalled
 * Redis's input buffer that much longer still finds the memo. A copy held back longer (Redis
 * stopped for minutes with copies queued) runs when Redis wakes, whatever the memo's lifetime; that
 * is not covered. Settings whose memo would outlive {@link #LONGEST} are refused.
 */
public final class RequestMemo {

    private static final Log logger = LogFactory.getLog(RequestMemo.class);

    /** How much later than its send a copy may run (network, a stalled Redis) and still find the memo. */
    static final Duration STALL_MARGIN = Duration.ofSeconds(10);
    /** The longest memo: memos cost memory, and settings that need more are refused. */
    static final Duration LONGEST = Duration.ofMinutes(5);
    /** The memo under Redisson's default settings, for scripts loaded before any client is known. */
    static final long DEFAULT_LIFETIME_MS = of(new Config().useSingleServer()).lifetimeMs(0);

    private final int timeoutMs;
    private final int retryAttempts;
    /** The longest retry delay of each attempt, 0 .. retryAttempts. */
    private final long[] delayMs;
    private final String settings;

    private RequestMemo(int timeoutMs, int retryAttempts, long[] delayMs, String settings) {
        this.timeoutMs = timeoutMs;
        this.retryAttempts = retryAttempts;
        this.delayMs = delayMs;
        this.settings = settings;
    }

    /** The memo for the settings {@code redisson} sends commands with. */
    static RequestMemo forClient(RedissonClient redisson) {
        if (redisson instanceof Redisson client) {
            // the settings the command executors read, whichever server mode configured them
            return of(client.getServiceManager().getConfig());
        }
        logger.warn("The RedissonClient is a " + redisson.getClass().getName() + ", not a Redisson: its timeout and "
                + "retry settings cannot be read, so request memos are sized for Redisson's defaults");
        return of(new Config().useSingleServer());
    }

    static RequestMemo of(BaseConfig<?> config) {
        return of(config.getTimeout(), config.getRetryAttempts(), config.getRetryDelay());
    }

    /**
     * @throws SettingsNotCovered for a retry delay strategy whose longest delay cannot be known
     */
    static RequestMemo of(int timeoutMs, int retryAttempts, DelayStrategy retryDelay) {
        int attempts = Math.max(0, retryAttempts);
        String settings = "timeout " + timeoutMs + " ms, retryAttempts " + retryAttempts + ", retryDelay "
                + (retryDelay == null ? "none" : retryDelay.getClass().getSimpleName());
        long[] delays = new long[attempts + 1];
        for (int a = 0; a <= attempts; a++) {
            delays[a] = longestDelayMs(retryDelay, a, settings);
        }
        return new RequestMemo(Math.max(0, timeoutMs), attempts, delays, settings);
    }

    /** The longest delay {@code strategy} gives attempt {@code attempt}. */
    private static long longestDelayMs(DelayStrategy strategy, int attempt, String settings) {
        if (strategy == null) {
            return 0;
        }
        if (strategy instanceof ConstantDelay constant) {
            return constant.calcDelay(attempt).toMillis();
        }
        if (strategy instanceof EqualJitterDelay equal) {
            // half the capped exponential delay, plus up to the other half at random
            long base = equal.getBaseDelay().toMillis();
            long max = equal.getMaxDelay().toMillis();
            if (attempt >= 62 || base <= 0 || base >= max || (1L << attempt) > max / base) {
                return max;
            }
            return Math.min(base << attempt, max);
        }
        if (strategy instanceof FullJitterDelay || strategy instanceof DecorrelatedJitterDelay) {
            // no getter: every delay is at most maxDelay
            try {
                Field max = strategy.getClass().getDeclaredField("maxDelay");
                max.setAccessible(true);
                return ((Duration) max.get(strategy)).toMillis();
            }
            catch (ReflectiveOperationException | RuntimeException ex) {
                throw new SettingsNotCovered("the longest delay of the Redisson retryDelay " + strategy.getClass().getName()
                        + " cannot be read (" + ex + ")", settings);
            }
        }
        throw new SettingsNotCovered("the Redisson retryDelay " + strategy.getClass().getName() + " has no known longest "
                + "delay (ConstantDelay, EqualJitterDelay, FullJitterDelay and DecorrelatedJitterDelay have)", settings);
    }

    /**
     * The longest time from the first send of a request to the last resent copy.
     * @param extraWaitMs what each attempt waits beyond {@code timeout} (the replica wait of a confirmed publish)
     */
    long resendWindowMs(long extraWaitMs) {
        if (retryAttempts == 0) {
            return 0;
        }
        long responseMs = timeoutMs + extraWaitMs;
        long window = 0;
        for (int a = 0; a < retryAttempts; a++) {
            // waiting for a connection and the write (at most the retry delay, or the timeout without
            // one), the reply's timeout, then the delay before the next attempt
            window += connectionWaitMs(a, responseMs) + responseMs + delayMs[a];
        }
        return window + connectionWaitMs(retryAttempts, responseMs);
    }

    private long connectionWaitMs(int attempt, long responseMs) {
        return delayMs[attempt] > 0 ? delayMs[attempt] : responseMs;
    }

    /**
     * How long a memo lives: the resend window plus {@link #STALL_MARGIN}.
     * @throws SettingsNotCovered when that is longer than {@link #LONGEST}
     */
    long lifetimeMs(long extraWaitMs) {
        long lifetime = resendWindowMs(extraWaitMs) + STALL_MARGIN.toMillis();
        if (lifetime > LONGEST.toMillis()) {
            throw new SettingsNotCovered("a resent copy of a request may arrive up to " + resendWindowMs(extraWaitMs)
                    + " ms after the first" + (extraWaitMs > 0 ? " (with " + extraWaitMs + " ms of replica wait per attempt)" : "")
                    + ", and its memo would have to live longer than the longest allowed, " + LONGEST.toSeconds() + " s", settings);
        }
        return lifetime;
    }

    /** The longest retry delay of attempt {@code attempt} (0 .. retryAttempts). */
    long longestDelayMs(int attempt) {
        return delayMs[attempt];
    }

    /** The Redisson settings, as a message names them. */
    String settings() {
        return settings;
    }

    /** Client settings whose resent copies a request memo cannot cover. */
    public static final class SettingsNotCovered extends IllegalStateException {

        private static final long serialVersionUID = 1L;

        SettingsNotCovered(String why, String settings) {
            super("Request memos cannot cover the RedissonClient's settings (" + settings + "): " + why);
        }
    }

    /** How long the send time of the requests that share a memo bucket spans. */
    static final long BUCKET_WINDOW_MS = 1_000;
    /**
     * Most buckets per window for publishes and cancels: up to 128 x 512 = 65,536 calls a second into one
     * partition keep every bucket under {@code hash-max-listpack-entries} (512), where a memo costs
     * ~20 bytes; above, a bucket turns into a hash table (~60 bytes a memo). Each call scans its
     * bucket's listpack twice (the replay check, the write): at 6,000 calls a second 32 buckets
     * held ~190 memos each and the scans cost publish.lua ~2.5 us a call; 128 hold ~47. A JVM uses
     * fewer while its calls fill them ({@link MemoBuckets}).
     */
    static final int BUCKETS = 128;
    /** Buckets per window for claims: fewer calls, and a reply of several ids makes the hash a hash table anyway. */
    static final int CLAIM_BUCKETS = 8;

    /** A publish or cancel request to the queue partition whose keys are {@code k}, with a memo bucket of the current window. */
    static Request request(QueueKeys k) {
        return request(MemoBuckets.ofPublishes(k), System.currentTimeMillis());
    }

    /** A publish or cancel request sent at {@code nowMs}, in the bucket {@code buckets} gives it. */
    static Request request(MemoBuckets buckets, long nowMs) {
        return Request.of("p", buckets.next(nowMs, ThreadLocalRandom.current()), nowMs);
    }

    /** A claim request: claims have buckets of their own, so that their long replies leave the others' compact. */
    static Request claimRequest() {
        return Request.draw("c", CLAIM_BUCKETS, System.currentTimeMillis());
    }

    /**
     * Names one publish, claim or cancel call: its memo is field {@code field} of the hash
     * {@code bucket} ({@link QueueKeys#request(String)}). Redisson resends a script whose reply timed
     * out, and every copy runs once Redis answers again: the copies carry the same bucket and field,
     * so only the first acts. The bucket is one of a few per send-time window, at random, so that
     * each stays small; the window's second only names it (the bucket's TTL is Redis's, see _memo.lua).
     */
    record Request(String bucket, String field) {

        /** A new request of family {@code family} ({@code p} or {@code c}) sent at {@code nowMs}. */
        static Request draw(String family, int buckets, long nowMs) {
            return of(family, ThreadLocalRandom.current().nextInt(buckets), nowMs);
        }

        /** A new request of family {@code family} sent at {@code nowMs}, in bucket {@code bucket} of its window. */
        static Request of(String family, int bucket, long nowMs) {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            // 72 random bits: two requests of one bucket (a few hundred) never draw the same field
            byte[] bytes = new byte[9];
            random.nextBytes(bytes);
            return new Request(family + ":" + Long.toString(nowMs / BUCKET_WINDOW_MS, 36) + ":" + bucket,
                    Base64.getUrlEncoder().withoutPadding().encodeToString(bytes));
        }
    }
}
