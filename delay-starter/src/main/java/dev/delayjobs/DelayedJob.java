package dev.delayjobs;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

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
 * @param payloadVersion the payload version the job was published at ({@link PayloadVersion}); the
 *     payload itself was brought up to {@code T}'s version before the handler got it
 * @param group the job's group ({@link PublishRequest#group}), or {@code null} for the queue's default group
 */
public record DelayedJob<T>(String queue, String id, T payload, int attempt, Instant dueAt, Instant publishedAt,
        int payloadVersion, @Nullable String group) {

    /**
     * A job of the queue's default group: the form of this record before groups existed.
     *
     * @param queue the queue the job was published to
     * @param id the job id
     * @param payload the payload
     * @param attempt which delivery this is, starting at 1
     * @param dueAt when the job became due
     * @param publishedAt when the job was published
     * @param payloadVersion the payload version the job was published at
     */
    public DelayedJob(String queue, String id, T payload, int attempt, Instant dueAt, Instant publishedAt, int payloadVersion) {
        this(queue, id, payload, attempt, dueAt, publishedAt, payloadVersion, null);
    }

    /**
     * A job published at payload version 1: the form of this record before payload versions existed.
     *
     * @param queue the queue the job was published to
     * @param id the job id
     * @param payload the payload
     * @param attempt which delivery this is, starting at 1
     * @param dueAt when the job became due
     * @param publishedAt when the job was published
     */
    public DelayedJob(String queue, String id, T payload, int attempt, Instant dueAt, Instant publishedAt) {
        this(queue, id, payload, attempt, dueAt, publishedAt, 1, null);
    }
}
