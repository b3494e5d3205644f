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

    // mirrors decode() in _record.lua: the compact form, then the form of earlier versions
    private static final Pattern COMPACT = Pattern.compile("^([0-9a-z]+),([0-9a-z]+),(-?[0-9a-z]+),(-?[0-9a-z]+)\\|(.*)$",
            Pattern.DOTALL);
    private static final Pattern LEGACY = Pattern.compile("^(\\d+)\\|(\\d+)\\|([01])\\|(-?\\d+)\\|(-?\\d+)\\|(.*)$",
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
        m = LEGACY.matcher(record);
        if (!m.matches()) {
            return null;
        }
        return new StoredJob(id, m.group(1), Integer.parseInt(m.group(2)), Long.parseLong(m.group(4)),
                Long.parseLong(m.group(5)), JobEnvelope.payload(m.group(6)), JobEnvelope.headers(m.group(6)));
    }

    static boolean isRunning(String record) {
        Matcher m = COMPACT.matcher(record);
        if (m.matches()) {
            return Long.parseLong(m.group(2), 36) % 2 == 1;
        }
        m = LEGACY.matcher(record);
        return m.matches() && "1".equals(m.group(3));
    }
}
