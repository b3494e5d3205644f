package dev.delayjobs;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a bean method that handles the due jobs of one queue.
 *
 * <p>The method takes one parameter: the payload type ({@code void close(OrderTimeout event)}),
 * read from the job's JSON with the application's Jackson mapper, or {@link DelayedJob} of the
 * payload type to see the id, attempt and due time as well. Returning normally acknowledges the
 * job; throwing schedules a retry with backoff until {@link #maxAttempts()} is reached, after which
 * the job goes to the dead set. Throw {@link NonRetryableJobException} to send it there at once;
 * the exception classes listed in {@code delay.consumer.not-retryable-exceptions} (or per queue)
 * do too, and a {@link JobFailurePolicy} bean decides in place of those properties.
 *
 * <p>Every attribute but {@link #queue()} is optional and accepts property placeholders
 * ({@code "${orders.timeout.workers:4}"}) and SpEL. An attribute left empty falls back to
 * {@code delay.queues.<queue>.*}, then to the global {@code delay.consumer.*} defaults.
 *
 * <p>One queue has at most one handler per application.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DelayedHandler {

    /**
     * The queue to consume: letters, digits, '.', '_' or '-', at most 100 characters.
     *
     * @return the queue's name, starting with a letter or digit, or a placeholder or SpEL
     *     expression that resolves to it; an invalid name fails startup
     */
    String queue();

    /**
     * How many jobs of this queue run at once in this instance.
     *
     * @return a number from 1 to 1000; empty to use {@code delay.queues.<queue>.concurrency}, else
     *     {@code delay.consumer.concurrency} (1 by default)
     */
    String concurrency() default "";

    /**
     * How many deliveries a job gets before it goes to the dead set (1 = no retry).
     *
     * @return a number, at least 1; empty to use {@code delay.queues.<queue>.max-attempts}, else
     *     {@code delay.consumer.max-attempts} (3 by default)
     */
    String maxAttempts() default "";

    /**
     * Delay before the first retry, as a duration ({@code "500ms"}, {@code "10s"}, {@code "PT1M"}).
     *
     * @return a duration, zero or more; empty to use {@code delay.queues.<queue>.backoff.initial},
     *     else {@code delay.consumer.backoff.initial} (1 second by default)
     */
    String backoffInitial() default "";

    /**
     * Factor applied to the retry delay after each failed attempt: the delay after failed attempt
     * {@code k} is {@code backoffInitial * backoffMultiplier^(k-1)}, capped at {@link #backoffMax()}
     * and spread by {@code delay.consumer.backoff.jitter}.
     *
     * @return a decimal number, at least 1.0 ({@code "2"}, {@code "1.5"}); empty to use
     *     {@code delay.queues.<queue>.backoff.multiplier}, else
     *     {@code delay.consumer.backoff.multiplier} (2.0 by default)
     */
    String backoffMultiplier() default "";

    /**
     * Upper bound of the retry delay, as a duration.
     *
     * @return a duration, at least {@link #backoffInitial()}; empty to use
     *     {@code delay.queues.<queue>.backoff.max}, else {@code delay.consumer.backoff.max}
     *     (10 minutes by default)
     */
    String backoffMax() default "";

    /**
     * Whether the handler starts consuming with the application context ({@code "true"} by default).
     *
     * @return {@code "true"} or {@code "false"} (in any case); empty to use
     *     {@code delay.queues.<queue>.auto-startup}, else {@code delay.consumer.auto-startup}
     */
    String autoStartup() default "";

    /**
     * Longest time one call of the method may run, as a duration ({@code "30s"}). When it is
     * exceeded, the thread running the method is interrupted, the worker is freed for other jobs,
     * and the attempt counts as failed with the error {@code handler timed out after <timeout>}:
     * the job is retried, or goes to the dead set after its last attempt. Whatever the method does
     * after that is ignored; it cannot acknowledge the job any more. No limit by default.
     *
     * @return a positive duration; empty to use {@code delay.queues.<queue>.handler-timeout}, else
     *     {@code delay.consumer.handler-timeout} (unset: no limit)
     */
    String handlerTimeout() default "";
}
