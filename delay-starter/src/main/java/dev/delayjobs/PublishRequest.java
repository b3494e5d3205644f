package dev.delayjobs;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

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
    private final @Nullable Duration delay;
    private final @Nullable Instant dueAt;
    private final @Nullable String key;
    private final boolean replaceExisting;
    private final @Nullable Boolean afterCommit;
    private final @Nullable String group;

    private PublishRequest(Object payload, @Nullable Duration delay, @Nullable Instant dueAt, @Nullable String key,
            boolean replaceExisting, @Nullable Boolean afterCommit, @Nullable String group) {
        this.group = group;
        this.payload = payload;
        this.delay = delay;
        this.dueAt = dueAt;
        this.key = key;
        this.replaceExisting = replaceExisting;
        this.afterCommit = afterCommit;
    }

    /**
     * A request for {@code payload}, due at once until {@link #delay} or {@link #at} says otherwise.
     *
     * @param payload the job's data: any object the application's Jackson mapper can write, at
     *     most {@code delay.max-payload-size} (64KB by default) as UTF-8 JSON; checked when the
     *     request is published, where {@code null} is refused
     * @return a request with a generated id, no replacing, and the configured after-commit default
     */
    public static PublishRequest of(Object payload) {
        return new PublishRequest(payload, Duration.ZERO, null, null, false, null, null);
    }

    /**
     * Due after {@code delay} from the moment Redis stores the job, on the Redis server's clock
     * (after the commit for a request that waits for it). Replaces an earlier {@link #at}.
     *
     * @param delay zero (due at once) up to 36,500 days; a negative or longer one is refused when
     *     the request is published
     * @return a new request with this delay
     * @throws IllegalArgumentException when {@code delay} is null
     */
    public PublishRequest delay(Duration delay) {
        if (delay == null) {
            throw new IllegalArgumentException("delay must not be null");
        }
        return new PublishRequest(payload, delay, null, key, replaceExisting, afterCommit, group);
    }

    /**
     * Due at {@code dueAt}, read with this JVM's clock. Replaces an earlier {@link #delay}.
     *
     * @param dueAt from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z, checked when the request
     *     is published; an instant in the past makes the job due at once
     * @return a new request due at this instant
     * @throws IllegalArgumentException when {@code dueAt} is null
     */
    public PublishRequest at(Instant dueAt) {
        if (dueAt == null) {
            throw new IllegalArgumentException("dueAt must not be null");
        }
        return new PublishRequest(payload, null, dueAt, key, replaceExisting, afterCommit, group);
    }

    /**
     * Uses {@code key} as the job id. While a job with this key is waiting or dead, publishing the
     * key again keeps that job, unless {@link #replaceExisting()} says otherwise; while a consumer
     * holds it, the publish waits as its successor. Either way the key is returned.
     *
     * @param key the business key: not blank, at most 256 characters, no control characters,
     *     checked when the request is published; {@code null} goes back to a generated id
     * @return a new request with this key
     */
    public PublishRequest key(@Nullable String key) {
        return new PublishRequest(payload, delay, dueAt, key, replaceExisting, afterCommit, group);
    }

    /**
     * Puts the job in {@code group}: claims serve the groups of a queue that have ready jobs in
     * turn, so one group's backlog does not hold back another group's jobs, and
     * {@code delay.queues.<queue>.group-concurrency} limits how many jobs of one group are held at
     * once across all instances. Within a group jobs keep their due-time order. See the groups page
     * of the documentation ({@code docs/groups.md}).
     *
     * @param group the group: not blank, at most 256 characters, no control characters, checked when
     *     the request is published; {@code null} goes back to the queue's default group
     * @return a new request in this group
     */
    public PublishRequest group(@Nullable String group) {
        return new PublishRequest(payload, delay, dueAt, key, replaceExisting, afterCommit, group);
    }

    /**
     * Replaces a job with the same key that is delayed, ready or dead (its attempts and error are
     * reset). A running job is not replaced while it runs: the publish waits as its successor,
     * which replaces it if the run fails (retried or buried) and follows it if the run succeeds
     * ({@link JobInfo.Successor}). A job {@link JobState#PREFETCHED} by a consumer is treated as a
     * running one. A successor already waiting is replaced too. Without a {@link #key} there is
     * nothing to replace and this changes nothing.
     *
     * @return a new request that replaces an existing job
     */
    public PublishRequest replaceExisting() {
        return new PublishRequest(payload, delay, dueAt, key, true, afterCommit, group);
    }

    /**
     * Inside a Spring-managed transaction, stores the job only once the transaction commits, and
     * never if it rolls back; the id is returned at once. The delay then counts from the commit.
     * Outside a transaction the job is stored at once. {@code delay.publisher.after-commit=true}
     * makes this the default for every request.
     *
     * <p>The database and Redis are still not one transaction: should Redis fail to store the job
     * after the commit, the {@link DelayQueueException} reaches the code that committed, with the
     * data already committed. {@link DelayPublisher#find} answers empty until the commit.
     *
     * @return a new request that waits for the commit
     */
    public PublishRequest afterCommit() {
        return new PublishRequest(payload, delay, dueAt, key, replaceExisting, true, group);
    }

    /**
     * Stores the job at once, even inside a transaction and with {@code delay.publisher.after-commit=true}:
     * it stays stored should the transaction roll back.
     *
     * @return a new request that does not wait for the commit
     */
    public PublishRequest immediately() {
        return new PublishRequest(payload, delay, dueAt, key, replaceExisting, false, group);
    }

    /**
     * The payload to publish.
     *
     * @return the object given to {@link #of(Object)}, written as JSON when published
     */
    public Object payload() {
        return payload;
    }

    /**
     * The delay, or {@code null} when the request names an instant.
     *
     * @return the delay from when the job is stored; {@link Duration#ZERO} when neither
     *     {@link #delay(Duration)} nor {@link #at} was called
     */
    public @Nullable Duration delay() {
        return delay;
    }

    /**
     * The due instant, or {@code null} when the request names a delay.
     *
     * @return the instant given to {@link #at}
     */
    public @Nullable Instant dueAt() {
        return dueAt;
    }

    /**
     * The business key, or {@code null} for a generated id.
     *
     * @return the key given to {@link #key}
     */
    public @Nullable String key() {
        return key;
    }

    /**
     * The group, or {@code null} for the queue's default group.
     *
     * @return the group given to {@link #group}
     */
    public @Nullable String group() {
        return group;
    }

    /**
     * Whether the job replaces an existing job with the same key.
     *
     * @return {@code true} after {@link #replaceExisting()}; {@code false} by default
     */
    public boolean isReplaceExisting() {
        return replaceExisting;
    }

    /**
     * Whether the job waits for the transaction's commit, as this request chose.
     *
     * @return {@code true} for {@link #afterCommit()}, {@code false} for {@link #immediately()},
     *     {@code null} for the configured default ({@code delay.publisher.after-commit})
     */
    public @Nullable Boolean afterCommitChoice() {
        return afterCommit;
    }
}
