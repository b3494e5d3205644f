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
     * no instance consumes yet is allowed (a deploy that must not consume until told). Jobs
     * prefetched by a consumer go back to ready; jobs already running finish and are acknowledged
     * as usual. The pause is stored in Redis: it lasts across restarts of the applications until
     * {@link #resume}.
     *
     * @param queue the queue's name (1 to 100 letters, digits, {@code '.'}, {@code '_'} or
     *     {@code '-'}, starting with a letter or digit); every partition of a partitioned queue
     *     is paused
     * @return false if it was already paused
     * @throws IllegalArgumentException when {@code queue} is null or not a valid queue name
     * @throws DelayQueueException when Redis cannot be reached or does not answer in time
     */
    boolean pause(String queue);

    /**
     * Resumes {@code queue}: consumers claim again at once.
     *
     * @param queue the queue's name (1 to 100 letters, digits, {@code '.'}, {@code '_'} or
     *     {@code '-'}, starting with a letter or digit); every partition of a partitioned queue
     *     is resumed
     * @return false if it was not paused
     * @throws IllegalArgumentException when {@code queue} is null or not a valid queue name
     * @throws DelayQueueException when Redis cannot be reached or does not answer in time
     */
    boolean resume(String queue);

    /**
     * Sets the rate limit of {@code queue} for every instance, over the one configured with
     * {@code delay.queues.<queue>.rate-limit}, until it is cleared; {@code null} clears it.
     * Consumers apply a change at their next claim. The limit is stored in Redis: it lasts across
     * restarts of the applications.
     *
     * @param queue the queue's name (1 to 100 letters, digits, {@code '.'}, {@code '_'} or
     *     {@code '-'}, starting with a letter or digit); every partition of a partitioned queue
     *     gets its share of the limit
     * @param limit the limit for every instance together, or {@code null} to go back to each
     *     instance's configured one (none when it has none)
     * @throws IllegalArgumentException when {@code queue} is null or not a valid queue name, or
     *     {@code limit} allows fewer jobs per window than the queue has partitions
     * @throws DelayQueueException when Redis cannot be reached or does not answer in time
     */
    void setRateLimit(String queue, @Nullable RateLimit limit);

    /**
     * Whether {@code queue} is paused, and the rate limit set at runtime, if any.
     *
     * @param queue the queue's name (1 to 100 letters, digits, {@code '.'}, {@code '_'} or
     *     {@code '-'}, starting with a letter or digit)
     * @return the queue's settings as stored in Redis: not paused and no runtime limit for a queue
     *     never paused nor limited
     * @throws IllegalArgumentException when {@code queue} is null or not a valid queue name
     * @throws DelayQueueException when Redis cannot be reached or does not answer in time
     */
    QueueControlState state(String queue);

    /**
     * The operator's settings of one queue, as stored in Redis.
     *
     * @param pausedAt when the queue was paused, or null when it is not
     * @param rateLimit the rate limit set at runtime with {@link #setRateLimit}, or null (then
     *     each instance applies its configured one, if any)
     */
    record QueueControlState(@Nullable Instant pausedAt, @Nullable RateLimit rateLimit) {

        /**
         * Whether the queue is paused.
         *
         * @return {@code true} when {@link #pausedAt()} is set
         */
        public boolean paused() {
            return pausedAt != null;
        }
    }
}
