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
 * the job goes to the dead set. Throw {@link NonRetryableJobException} to send it there at once.
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

    /** The queue to consume: letters, digits, '.', '_' or '-', at most 100 characters. */
    String queue();

    /** How many jobs of this queue run at once in this instance. */
    String concurrency() default "";

    /** How many deliveries a job gets before it goes to the dead set (1 = no retry). */
    String maxAttempts() default "";

    /** Delay before the first retry, as a duration ({@code "500ms"}, {@code "10s"}, {@code "PT1M"}). */
    String backoffInitial() default "";

    /** Factor applied to the retry delay after each failed attempt. */
    String backoffMultiplier() default "";

    /** Upper bound of the retry delay, as a duration. */
    String backoffMax() default "";

    /** Whether the handler starts consuming with the application context ({@code "true"} by default). */
    String autoStartup() default "";

    /**
     * Longest time one call of the method may run, as a duration ({@code "30s"}). When it is
     * exceeded, the thread running the method is interrupted, the worker is freed for other jobs,
     * and the attempt counts as failed with the error {@code handler timed out after <timeout>}:
     * the job is retried, or goes to the dead set after its last attempt. Whatever the method does
     * after that is ignored; it cannot acknowledge the job any more. No limit by default.
     */
    String handlerTimeout() default "";
}
