package dev.delayjobs.redis;

/**
 * A job in the dead set.
 *
 * @param id the job id
 * @param diedAt when it went dead, epoch ms
 * @param attempts deliveries it had
 * @param lastError why it died
 */
public record DeadJob(String id, long diedAt, int attempts, String lastError) {
}
