package dev.delayjobs;

import java.time.Duration;
import java.time.Instant;

/**
 * One job to publish: a payload, when it becomes due, and optionally a business key.
 *
 * <pre>{@code
 * delays.publishAll("reminders", List.of(
 *         PublishRequest.of(reminder).delay(Duration.ofHours(1)).key("user-7"),
 *         PublishRequest.of(other).at(Instant.parse("2026-12-01T09:00:00Z"))));
 * }</pre>
 *
 * <p>Without {@link #delay} or {@link #at} the job is due at once. Immutable: each method returns
 * a new request.
 */
public final class PublishRequest {

    private final Object payload;
    private final Duration delay;
    private final Instant dueAt;
    private final String key;
    private final boolean replaceExisting;
    private final Boolean afterCommit;

    private PublishRequest(Object payload, Duration delay, Instant dueAt, String key, boolean replaceExisting,
            Boolean afterCommit) {
        this.payload = payload;
        this.delay = delay;
        this.dueAt = dueAt;
        this.key = key;
        this.replaceExisting = replaceExisting;
        this.afterCommit = afterCommit;
    }

    /** A request for {@code payload}, due at once until {@link #delay} or {@link #at} says otherwise. */
    public static PublishRequest of(Object payload) {
        return new PublishRequest(payload, Duration.ZERO, null, null, false, null);
    }

    /** Due after {@code delay} from the moment Redis stores the job. */
    public PublishRequest delay(Duration delay) {
        if (delay == null) {
            throw new IllegalArgumentException("delay must not be null");
        }
        return new PublishRequest(payload, delay, null, key, replaceExisting, afterCommit);
    }

    /** Due at {@code dueAt}, read with this JVM's clock. */
    public PublishRequest at(Instant dueAt) {
        if (dueAt == null) {
            throw new IllegalArgumentException("dueAt must not be null");
        }
        return new PublishRequest(payload, null, dueAt, key, replaceExisting, afterCommit);
    }

    /** Uses {@code key} as the job id. */
    public PublishRequest key(String key) {
        return new PublishRequest(payload, delay, dueAt, key, replaceExisting, afterCommit);
    }

    /**
     * Replaces a job with the same key that is delayed, ready or dead (its attempts and error are
     * reset). A running job is not replaced while it runs: the publish waits as its successor,
     * which replaces it if the run fails (retried or buried) and follows it if the run succeeds
     * ({@link JobInfo.Successor}).
     */
    public PublishRequest replaceExisting() {
        return new PublishRequest(payload, delay, dueAt, key, true, afterCommit);
    }

    /**
     * Inside a Spring-managed transaction, stores the job only once the transaction commits, and
     * never if it rolls back; the id is returned at once. The delay then counts from the commit.
     * Outside a transaction the job is stored at once. {@code delay.publisher.after-commit=true}
     * makes this the default for every request.
     */
    public PublishRequest afterCommit() {
        return new PublishRequest(payload, delay, dueAt, key, replaceExisting, true);
    }

    /** Stores the job at once, even inside a transaction and with {@code delay.publisher.after-commit=true}. */
    public PublishRequest immediately() {
        return new PublishRequest(payload, delay, dueAt, key, replaceExisting, false);
    }

    public Object payload() {
        return payload;
    }

    /** The delay, or {@code null} when the request names an instant. */
    public Duration delay() {
        return delay;
    }

    /** The due instant, or {@code null} when the request names a delay. */
    public Instant dueAt() {
        return dueAt;
    }

    /** The business key, or {@code null} for a generated id. */
    public String key() {
        return key;
    }

    public boolean isReplaceExisting() {
        return replaceExisting;
    }

    /** {@code true} for {@link #afterCommit()}, {@code false} for {@link #immediately()}, {@code null} for the configured default. */
    public Boolean afterCommitChoice() {
        return afterCommit;
    }
}
