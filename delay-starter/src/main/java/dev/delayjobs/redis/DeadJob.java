package dev.delayjobs.redis;

import org.jspecify.annotations.Nullable;

/**
 * A job in the dead set.
 *
 * @param id the job id
 * @param diedAt when it went dead, epoch ms
 * @param attempts deliveries it had
 * @param lastError why it died
 * @param payloadVersion the payload version it was published at (1 when its record has no version
 *     header, 0 for a header that is no positive number, as {@code PayloadVersions.stored} reads
 *     it); null when its record was not read: past the page's byte budget
 *     ({@link DeadJobs#MOST_RECORD_BYTES}), gone, or not a job record
 */
public record DeadJob(String id, long diedAt, int attempts, @Nullable String lastError, @Nullable Integer payloadVersion) {
}
