package dev.delayjobs;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * Operates queues across every instance: the state lives in Redis, so a queue paused here stops
 * being consumed everywhere. Injected like {@link DelayPublisher}.
 *
 * <p>A paused queue keeps accepting publishes and keeps moving due jobs to ready; no consumer
 * claims from it (jobs already running finish). A rate limit caps how many of the queue's jobs
 * start in any window, all instances together; jobs over it wait in ready (lateness shows the
 * wait).
 */
public interface DelayQueueControl {

    /**
     * Pauses {@code queue}: every consumer stops claiming at its next claim. Pausing a queue that
     * no instance consumes yet is allowed (a deploy that must not consume until told).
     *
     * @return false if it was already paused
     */
    boolean pause(String queue);

    /**
     * Resumes {@code queue}: consumers claim again at once.
     *
     * @return false if it was not paused
     */
    boolean resume(String queue);

    /**
     * Sets the rate limit of {@code queue} for every instance, over the one configured with
     * {@code delay.queues.<queue>.rate-limit}, until it is cleared; {@code null} clears it.
     */
    void setRateLimit(String queue, @Nullable RateLimit limit);

    /** Whether {@code queue} is paused, and the rate limit set at runtime, if any. */
    QueueControlState state(String queue);

    /**
     * The operator's settings of one queue, as stored in Redis.
     *
     * @param pausedAt when the queue was paused, or null when it is not
     * @param rateLimit the rate limit set at runtime with {@link #setRateLimit}, or null (then
     *     each instance applies its configured one, if any)
     */
    record QueueControlState(@Nullable Instant pausedAt, @Nullable RateLimit rateLimit) {

        public boolean paused() {
            return pausedAt != null;
        }
    }
}
