package dev.delayjobs.core;

import java.time.Duration;
import java.time.Instant;

import dev.delayjobs.PublishRequest;

/**
 * The rules every public entry point applies to job ids, delays and due times; queue names are
 * checked once, by {@link dev.delayjobs.queue.QueueName}.
 */
public final class JobArguments {

    /** Longest job id or business key accepted. */
    public static final int MAX_ID_LENGTH = 256;

    /** Longest delay accepted: 100 years. */
    public static final Duration MAX_DELAY = Duration.ofDays(36_500);

    /** Latest due time accepted. */
    public static final Instant MAX_DUE = Instant.parse("9999-12-31T23:59:59.999Z");

    private JobArguments() {
    }

    /** Checks a job id or business key: not blank, at most 256 characters, no control characters. */
    public static String id(String id) {
        if (id == null) {
            throw new IllegalArgumentException("job id/key must not be null");
        }
        if (id.isBlank()) {
            throw new IllegalArgumentException("job id/key must not be blank");
        }
        if (id.length() > MAX_ID_LENGTH) {
            throw new IllegalArgumentException("job id/key is " + id.length() + " characters long; the maximum is "
                    + MAX_ID_LENGTH);
        }
        if (id.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException("job id/key must not contain control characters");
        }
        return id;
    }

    /** Checks a job's group: not blank, at most 256 characters, no control characters. */
    public static String group(String group) {
        if (group.isBlank()) {
            throw new IllegalArgumentException("job group must not be blank");
        }
        if (group.length() > MAX_ID_LENGTH) {
            throw new IllegalArgumentException("job group is " + group.length() + " characters long; the maximum is "
                    + MAX_ID_LENGTH);
        }
        if (group.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException("job group must not contain control characters");
        }
        return group;
    }

    public static Duration delay(Duration delay) {
        if (delay == null) {
            throw new IllegalArgumentException("delay must not be null");
        }
        if (delay.isNegative()) {
            throw new IllegalArgumentException("delay must not be negative, was " + delay);
        }
        if (delay.compareTo(MAX_DELAY) > 0) {
            throw new IllegalArgumentException("delay must be at most " + MAX_DELAY.toDays() + " days, was "
                    + DurationText.of(delay));
        }
        return delay;
    }

    /** Checks a due time: from 1970-01-01 to 9999-12-31 (UTC), the range the job record holds. */
    public static Instant dueAt(Instant dueAt) {
        if (dueAt == null) {
            throw new IllegalArgumentException("dueAt must not be null");
        }
        if (dueAt.isBefore(Instant.EPOCH) || dueAt.isAfter(MAX_DUE)) {
            throw new IllegalArgumentException("dueAt must be between " + Instant.EPOCH + " and " + MAX_DUE + ", was "
                    + dueAt);
        }
        return dueAt;
    }

    /** A publish request, or an {@link IllegalArgumentException} when it is null. */
    public static PublishRequest request(PublishRequest request) {
        if (request == null) {
            throw new IllegalArgumentException("publish request must not be null");
        }
        return request;
    }
}
