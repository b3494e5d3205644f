package dev.delayjobs;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * What {@link DelayPublisher#find} knows of a job.
 *
 * @param queue the queue
 * @param id the job id
 * @param state where the job is
 * @param dueAt when it becomes (or became) due; {@code null} only when the stored record cannot
 *     be read (then {@code payloadJson} holds the record as stored)
 * @param publishedAt when it was published; {@code null} only when the stored record cannot be read
 * @param attempts how many deliveries it has had so far
 * @param lastError the error of its last failed attempt, or {@code null}
 * @param payloadJson the payload as stored, JSON
 * @param successor a publish with the job's key that met it RUNNING or PREFETCHED and waits to take
 *     its key, or {@code null}
 * @param payloadVersion the version of the payload type that published it ({@link PayloadVersion}):
 *     1 for a type without one
 * @param group the job's group ({@link PublishRequest#group}), or {@code null} for the queue's default group
 */
public record JobInfo(String queue, String id, JobState state, @Nullable Instant dueAt, @Nullable Instant publishedAt,
        int attempts, @Nullable String lastError, String payloadJson, @Nullable Successor successor, int payloadVersion,
        @Nullable String group) {

    /**
     * A job of the queue's default group. The form of this record before groups existed.
     *
     * @param queue the queue the job was published to
     * @param id the job id (the business key when one was given)
     * @param state where the job is
     * @param dueAt when it becomes (or became) due
     * @param publishedAt when it was published
     * @param attempts how many deliveries it has had so far
     * @param lastError the error of its last failed attempt, or {@code null}
     * @param payloadJson the payload as stored, JSON
     * @param successor a publish waiting to take the job's key, or {@code null}
     * @param payloadVersion the version of the payload type that published it
     */
    public JobInfo(String queue, String id, JobState state, @Nullable Instant dueAt, @Nullable Instant publishedAt,
            int attempts, @Nullable String lastError, String payloadJson, @Nullable Successor successor, int payloadVersion) {
        this(queue, id, state, dueAt, publishedAt, attempts, lastError, payloadJson, successor, payloadVersion, null);
    }

    /**
     * A job at payload version 1. The form of this record before payload versions existed.
     *
     * @param queue the queue the job was published to
     * @param id the job id (the business key when one was given)
     * @param state where the job is
     * @param dueAt when it becomes (or became) due
     * @param publishedAt when it was published
     * @param attempts how many deliveries it has had so far
     * @param lastError the error of its last failed attempt, or {@code null}
     * @param payloadJson the payload as stored, JSON
     * @param successor a publish waiting to take the job's key, or {@code null}
     */
    public JobInfo(String queue, String id, JobState state, @Nullable Instant dueAt, @Nullable Instant publishedAt,
            int attempts, @Nullable String lastError, String payloadJson, @Nullable Successor successor) {
        this(queue, id, state, dueAt, publishedAt, attempts, lastError, payloadJson, successor, 1);
    }

    /**
     * A job without a successor: {@link #successor()} is {@code null}. The form of this record
     * before successors existed, kept for code that builds one (a test double of
     * {@link DelayPublisher#find}, say).
     *
     * @param queue the queue the job was published to
     * @param id the job id (the business key when one was given)
     * @param state where the job is
     * @param dueAt when it becomes (or became) due; {@code null} when the stored record cannot be read
     * @param publishedAt when it was published; {@code null} when the stored record cannot be read
     * @param attempts how many deliveries it has had so far
     * @param lastError the error of its last failed attempt, or {@code null}
     * @param payloadJson the payload as stored, JSON
     */
    public JobInfo(String queue, String id, JobState state, @Nullable Instant dueAt, @Nullable Instant publishedAt,
            int attempts, @Nullable String lastError, String payloadJson) {
        this(queue, id, state, dueAt, publishedAt, attempts, lastError, payloadJson, null, 1);
    }

    /**
     * A keyed publish that met the job while a consumer held it (RUNNING or PREFETCHED). It becomes
     * the job, with no attempt and its own due time, when the held job is acked or buried; with
     * {@link PublishRequest#replaceExisting()} also when the held job is retried. Until then a
     * recovered job keeps it, a second publish with the key is kept out of it (or replaces it, with
     * {@code replaceExisting()}), and {@link DelayPublisher#cancel} deletes it.
     *
     * @param dueAt when it becomes due
     * @param publishedAt when it was published
     * @param replacesJob whether it was published with {@code replaceExisting()}
     * @param payloadJson its payload, JSON
     * @param group the group it was published with, which the job takes with it ({@code null}: the
     *     default group)
     */
    public record Successor(Instant dueAt, Instant publishedAt, boolean replacesJob, String payloadJson,
            @Nullable String group) {

        /**
         * A successor in the default group. The form of this record before groups existed.
         *
         * @param dueAt when it becomes due
         * @param publishedAt when it was published
         * @param replacesJob whether it was published with {@code replaceExisting()}
         * @param payloadJson its payload, JSON
         */
        public Successor(Instant dueAt, Instant publishedAt, boolean replacesJob, String payloadJson) {
            this(dueAt, publishedAt, replacesJob, payloadJson, null);
        }
    }
}
