package dev.delayjobs.store;

import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * A job record as stored and handed to a consumer by a claim.
 *
 * @param id the job id
 * @param gen the queue's publish sequence number of this record; acks and retries name it so that a
 *     job replaced meanwhile is left alone
 * @param attempts handler runs started so far; in a claim's job, this one included
 * @param dueAt due time, epoch ms: the Redis server clock plus the delay, or the instant given to
 *     {@code publishAt} (the publisher's clock)
 * @param publishedAt publish time, epoch ms of the Redis server clock
 * @param payload the payload JSON
 * @param headers what travels with the job besides its payload (a trace context); empty for most jobs
 * @param group the group a claim took the job in, {@code null} for the queue's default group (and
 *     wherever the record was read without its claim)
 */
public record StoredJob(String id, String gen, int attempts, long dueAt, long publishedAt, String payload,
        Map<String, String> headers, @Nullable String group) {

    /** A job of the default group. */
    public StoredJob(String id, String gen, int attempts, long dueAt, long publishedAt, String payload,
            Map<String, String> headers) {
        this(id, gen, attempts, dueAt, publishedAt, payload, headers, null);
    }

    /** The same job in {@code group} ({@code null} or empty: the default group). */
    public StoredJob inGroup(@Nullable String group) {
        return new StoredJob(id, gen, attempts, dueAt, publishedAt, payload, headers, group == null || group.isEmpty() ? null : group);
    }
}
