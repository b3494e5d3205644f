package dev.delayjobs.redis;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A job record as stored in Redis and handed to a consumer by a claim.
 *
 * @param id the job id
 * @param gen the queue's publish sequence number of this record; acks and retries name it so that a
 *     job replaced meanwhile is left alone
 * @param attempts deliveries so far, this one included
 * @param dueAt due time, epoch ms: the Redis server clock plus the delay, or the instant given to
 *     {@code publishAt} (the publisher's clock)
 * @param publishedAt publish time, epoch ms of the Redis server clock
 * @param payload the payload JSON
 * @param headers what travels with the job besides its payload (a trace context); empty for most jobs
 */
public record StoredJob(String id, String gen, int attempts, long dueAt, long publishedAt, String payload,
        Map<String, String> headers) {

    // mirrors decode() in _record.lua
    private static final Pattern COMPACT = Pattern.compile("^([0-9a-z]{1,12}),([0-9a-z]{1,12}),(-?[0-9a-z]{1,12}),(-?[0-9a-z]{1,12})\\|(.*)$",
            Pattern.DOTALL);

    /** Reads a record, or returns {@code null} when it is not in the job format. */
    static StoredJob parse(String id, String record) {
        Matcher m = COMPACT.matcher(record);
        if (m.matches()) {
            try {
                long flags = Long.parseLong(m.group(2), 36);
                long due = Long.parseLong(m.group(3), 36);
                return new StoredJob(id, m.group(1), (int) (flags / 2), due, due - Long.parseLong(m.group(4), 36),
                        JobEnvelope.payload(m.group(5)), JobEnvelope.headers(m.group(5)));
            }
            catch (NumberFormatException ex) {
                return null;
            }
        }
        return null;
    }

    static boolean isRunning(String record) {
        Matcher m = COMPACT.matcher(record);
        return m.matches() && Long.parseLong(m.group(2), 36) % 2 == 1;
    }
}
