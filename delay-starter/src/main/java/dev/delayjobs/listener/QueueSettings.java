package dev.delayjobs.listener;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;

import dev.delayjobs.RateLimit;

/**
 * How the handler of one queue consumes, after annotation attributes, {@code delay.queues.<queue>.*}
 * and the {@code delay.consumer.*} defaults were applied, in that order of precedence.
 *
 * @param concurrency jobs handled at once in this instance
 * @param maxAttempts deliveries before a job goes dead
 * @param backoff delay between attempts
 * @param autoStartup whether the container starts with the context
 * @param handlerTimeout how long one handler call may run before it is interrupted and counted as a
 *        failed attempt; {@code null} for no limit
 * @param rateLimit how many of the queue's jobs may start per window, all instances together (a rate
 *        limit set at runtime replaces it); {@code null} for none
 * @param pausedOnStartup whether starting the container pauses the queue, if it was never paused nor
 *        resumed before
 * @param prefetch jobs claimed ahead of the workers, waiting in this instance's buffer for a free
 *        worker (PREFETCHED, no attempt counted); {@code null} for about what the workers start in
 *        50 ms at their recent pace (none for handlers slower than 20 jobs a second), up to
 *        {@link #MAX_PREFETCH}
 * @param groupConcurrency most jobs of one group held at once by all instances (RUNNING or
 *        PREFETCHED); 0 for no limit
 */
public record QueueSettings(int concurrency, int maxAttempts, ExponentialBackoff backoff, boolean autoStartup,
        Duration handlerTimeout, RateLimit rateLimit, boolean pausedOnStartup, Integer prefetch, int groupConcurrency) {

    /** Settings with no limit per group. */
    public QueueSettings(int concurrency, int maxAttempts, ExponentialBackoff backoff, boolean autoStartup,
            Duration handlerTimeout, RateLimit rateLimit, boolean pausedOnStartup, Integer prefetch) {
        this(concurrency, maxAttempts, backoff, autoStartup, handlerTimeout, rateLimit, pausedOnStartup, prefetch, 0);
    }

    /** Most jobs of one queue handled at once in one instance: the largest claim tested (RedisJobStoreTest). */
    public static final int MAX_CONCURRENCY = 1000;
    /** Most jobs of one queue prefetched in one instance. */
    public static final int MAX_PREFETCH = 1000;

    public QueueSettings {
        if (concurrency < 1 || concurrency > MAX_CONCURRENCY) {
            throw new InvalidSettingException("concurrency", concurrency, "must be between 1 and " + MAX_CONCURRENCY);
        }
        if (maxAttempts < 1) {
            throw new InvalidSettingException("max-attempts", maxAttempts, "must be at least 1");
        }
        if (handlerTimeout != null && (handlerTimeout.isZero() || handlerTimeout.isNegative())) {
            throw new InvalidSettingException("handler-timeout", handlerTimeout, "must be positive (leave it unset for no limit)");
        }
        if (groupConcurrency < 0) {
            throw new InvalidSettingException("group-concurrency", groupConcurrency, "must be at least 1 (leave it unset for no limit)");
        }
        if (prefetch != null && (prefetch < 0 || prefetch > MAX_PREFETCH)) {
            throw new InvalidSettingException("prefetch", prefetch, "must be between 0 and " + MAX_PREFETCH
                    + " (leave it unset to follow the workers' pace)");
        }
    }

    /** A setting that cannot work, named as its property is under {@code delay.consumer}. */
    public static final class InvalidSettingException extends IllegalArgumentException {

        private final String setting;
        private final transient Object value;
        private final String reason;

        InvalidSettingException(String setting, Object value, String reason) {
            super(setting + " " + reason + ", was " + value);
            this.setting = setting;
            this.value = value;
            this.reason = reason;
        }

        /** The setting's name relative to its group: {@code concurrency}, {@code backoff.initial}, ... */
        public String setting() {
            return setting;
        }

        public Object value() {
            return value;
        }

        public String reason() {
            return reason;
        }
    }

    QueueSettings withConcurrency(int value) {
        return new QueueSettings(value, maxAttempts, backoff, autoStartup, handlerTimeout, rateLimit, pausedOnStartup, prefetch, groupConcurrency);
    }

    QueueSettings withMaxAttempts(int value) {
        return new QueueSettings(concurrency, value, backoff, autoStartup, handlerTimeout, rateLimit, pausedOnStartup, prefetch, groupConcurrency);
    }

    QueueSettings withBackoff(ExponentialBackoff value) {
        return new QueueSettings(concurrency, maxAttempts, value, autoStartup, handlerTimeout, rateLimit, pausedOnStartup, prefetch, groupConcurrency);
    }

    QueueSettings withAutoStartup(boolean value) {
        return new QueueSettings(concurrency, maxAttempts, backoff, value, handlerTimeout, rateLimit, pausedOnStartup, prefetch, groupConcurrency);
    }

    QueueSettings withHandlerTimeout(Duration value) {
        return new QueueSettings(concurrency, maxAttempts, backoff, autoStartup, value, rateLimit, pausedOnStartup, prefetch, groupConcurrency);
    }

    QueueSettings withPrefetch(Integer value) {
        return new QueueSettings(concurrency, maxAttempts, backoff, autoStartup, handlerTimeout, rateLimit, pausedOnStartup, value, groupConcurrency);
    }

    /** Where the configured settings of a queue come from (the {@code delay.*} properties). */
    @FunctionalInterface
    public interface Source {

        QueueSettings forQueue(String queue);
    }

    /**
     * The retry delays: {@code initial * multiplier^(attempt-1)}, capped at {@code max}, spread by
     * ±{@code jitter}. As a Spring {@link BackOff}, the k-th {@code nextBackOff()} of an execution is
     * the delay after failed attempt k, and it never stops (max attempts does).
     */
    public record ExponentialBackoff(Duration initial, double multiplier, Duration max, double jitter) implements BackOff {

        public ExponentialBackoff {
            if (initial == null || initial.isNegative()) {
                throw new InvalidSettingException("backoff.initial", initial, "must be zero or positive");
            }
            if (max == null || max.compareTo(initial) < 0) {
                throw new InvalidSettingException("backoff.max", max, "must be at least the initial backoff (" + initial + ")");
            }
            if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
                throw new InvalidSettingException("backoff.multiplier", multiplier, "must be at least 1.0");
            }
            if (!(jitter >= 0.0 && jitter <= 1.0)) {
                throw new InvalidSettingException("backoff.jitter", jitter, "must be between 0.0 and 1.0");
            }
        }

        /**
         * The delay before the next attempt after {@code failedAttempt} failed (1 for the first).
         * @param random a number in [0, 1) that spreads the delay
         */
        public Duration delayAfter(int failedAttempt, double random) {
            double base = initial.toMillis() * Math.pow(multiplier, Math.max(0, failedAttempt - 1));
            double capped = Math.min(base, max.toMillis());
            double spread = capped * jitter * (2 * random - 1);
            return Duration.ofMillis(Math.max(0, Math.round(Math.min(capped + spread, max.toMillis()))));
        }

        @Override
        public BackOffExecution start() {
            return new BackOffExecution() {

                private int failedAttempts;

                @Override
                public long nextBackOff() {
                    failedAttempts = failedAttempts == Integer.MAX_VALUE ? failedAttempts : failedAttempts + 1;
                    return delayAfter(failedAttempts, ThreadLocalRandom.current().nextDouble()).toMillis();
                }
            };
        }
    }
}
