package dev.delayjobs.redis;

import org.jspecify.annotations.Nullable;

/**
 * A job to store.
 *
 * @param id the job id
 * @param relative whether {@code time} is a delay in ms from the Redis server's now, or epoch ms
 * @param time the delay or the due time
 * @param replaceExisting whether to replace a waiting or dead job with the same id
 * @param payload the payload JSON, or its envelope with headers ({@link JobEnvelope})
 * @param generatedId whether the id was drawn by the publisher rather than a business key: such a
 *     job meeting any job is kept out ({@link PublishOutcome#KEPT_EXISTING}, to be drawn again),
 *     never stored as a held job's successor
 * @param group the job's group (claims serve groups in turn), {@code null} for the queue's default group
 */
public record NewJob(String id, boolean relative, long time, boolean replaceExisting, String payload, boolean generatedId,
        @Nullable String group) {

    /** A job of the default group. */
    public NewJob(String id, boolean relative, long time, boolean replaceExisting, String payload, boolean generatedId) {
        this(id, relative, time, replaceExisting, payload, generatedId, null);
    }

    /** A job under a business key, of the default group. */
    public NewJob(String id, boolean relative, long time, boolean replaceExisting, String payload) {
        this(id, relative, time, replaceExisting, payload, false, null);
    }

    /** The same job in {@code group}. */
    public NewJob inGroup(@Nullable String group) {
        return new NewJob(id, relative, time, replaceExisting, payload, generatedId, group);
    }

    /** The same job, its payload stored with {@code headers}. */
    public NewJob carrying(java.util.Map<String, String> headers) {
        return new NewJob(id, relative, time, replaceExisting, JobEnvelope.wrap(headers, payload), generatedId, group);
    }
}
