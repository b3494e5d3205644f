package dev.delayjobs;

import java.time.Instant;

/**
 * A due job as handed to a {@link DelayedHandler} method that declares a {@code DelayedJob<T>}
 * parameter.
 *
 * @param <T> the payload type
 * @param queue the queue the job was published to
 * @param id the job id (the business key when one was given)
 * @param payload the payload, read as {@code T}
 * @param attempt which delivery this is, starting at 1; above 1 the job was retried or recovered
 * @param dueAt when the job became due
 * @param publishedAt when the job was published
 */
public record DelayedJob<T>(String queue, String id, T payload, int attempt, Instant dueAt, Instant publishedAt) {
}
