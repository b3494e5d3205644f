package dev.delayjobs;

import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;

/**
 * Decides what becomes of a job whose handler failed: another attempt after a delay, or the dead
 * set at once.
 *
 * <p>The starter defines one from the {@code delay.consumer.backoff.*},
 * {@code delay.consumer.not-retryable-exceptions} and {@code delay.queues.<queue>.*} properties
 * and the {@link DelayedHandler} backoff attributes. A bean of this type in the application
 * replaces it for every queue.
 *
 * <p>Two rules hold whatever the policy says: a job whose handler threw a
 * {@link NonRetryableJobException} goes to the dead set at once, and a job whose last attempt
 * ({@link DelayedHandler#maxAttempts()}) failed goes there too. The policy is asked about the
 * other failures, on the handler's worker thread; if it throws, the error is logged and the
 * queue's configured backoff applies.
 */
public interface JobFailurePolicy {

    /**
     * Whether a failure of a job of {@code queue} may be retried; {@code false} sends the job to
     * the dead set at once.
     *
     * @param queue the job's queue
     * @param failure what the handler threw; a handler that ran past its timeout failed with a
     *     {@link java.util.concurrent.TimeoutException}
     * @return {@code true} to retry after the {@link #backOff(String) backoff}
     */
    boolean isRetryable(String queue, Throwable failure);

    /**
     * The delays between the attempts of the jobs of {@code queue}.
     *
     * <p>The attempt count of a job is kept in Redis, not in this JVM: for each failure the
     * starter starts a new {@link BackOffExecution} and calls {@link BackOffExecution#nextBackOff()}
     * once per failed attempt of the job, the last value being the delay before its next attempt
     * (the first value is the delay after the first failure). {@link BackOffExecution#STOP} sends
     * the job to the dead set.
     *
     * @param queue the job's queue
     * @return the queue's backoff
     */
    BackOff backOff(String queue);
}
