package dev.delayjobs;

import java.time.Instant;

/**
 * What {@link DelayPublisher#find} knows of a job.
 *
 * @param queue the queue
 * @param id the job id
 * @param state where the job is
 * @param dueAt when it becomes (or became) due
 * @param publishedAt when it was published
 * @param attempts how many deliveries it has had so far
 * @param lastError the error of its last failed attempt, or {@code null}
 * @param payloadJson the payload as stored, JSON
 */
public record JobInfo(String queue, String id, JobState state, Instant dueAt, Instant publishedAt, int attempts,
        String lastError, String payloadJson) {
}
