package dev.delayjobs;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Publishes delayed jobs and manages them while they wait.
 *
 * <p>A job is a payload (any object Jackson can write) that becomes due after a delay or at an
 * instant, and is then handed to the {@link DelayedHandler} of its queue, at least once. Every job
 * has an id: either generated, or a business key chosen by the caller ({@code "order-42"}), which
 * makes publishing idempotent and lets the caller cancel or reschedule the job without storing an
 * id.
 *
 * <p>Every method throws {@link IllegalArgumentException} naming the bad argument (invalid queue
 * name or key, negative delay, null, oversize or unwritable payload) and {@link DelayQueueException}
 * when Redis cannot be reached: a publish either returns an id or throws, it never drops a job
 * silently.
 */
public interface DelayPublisher {

    /**
     * Publishes a job that becomes due after {@code delay}.
     *
     * @param queue the queue's name: 1 to 100 letters, digits, {@code '.'}, {@code '_'} or
     *     {@code '-'}, starting with a letter or digit; it needs no declaring (the jobs of a queue
     *     that no instance consumes wait in Redis)
     * @param payload the job's data: any non-null object the application's Jackson mapper can
     *     write, at most {@code delay.max-payload-size} (64KB by default) as UTF-8 JSON; the
     *     handler gets it read back as its parameter type
     * @param delay how long from now the job waits, counted on the Redis server's clock from when
     *     it stores the job: zero (due at once) up to 36,500 days
     * @return the generated job id, unique within the queue: keep it to cancel, reschedule or
     *     find the job
     * @throws IllegalArgumentException when an argument is null or breaks its rule, naming it
     * @throws DelayQueueException when Redis cannot be reached or does not answer in time; a
     *     publish that timed out may have been stored all the same, so publish with a business
     *     key to be able to retry it safely
     */
    String publish(String queue, Object payload, Duration delay);

    /**
     * Publishes a job whose id is the business {@code key}. When a job with this key is waiting or
     * dead it is kept and its id returned: publishing the same key twice creates one job. Use
     * {@link PublishRequest#replaceExisting()} to replace it. When a consumer holds the job (running,
     * or prefetched), the publish waits as the job's successor ({@link JobInfo#successor()}), which
     * becomes the job when the held one is acked or buried: a new intent is never dropped because
     * the old job was running. Once the job is handled (or cancelled, or trimmed from the dead set)
     * the same key creates a new job.
     *
     * @param queue the queue's name: 1 to 100 letters, digits, {@code '.'}, {@code '_'} or
     *     {@code '-'}, starting with a letter or digit; it needs no declaring (the jobs of a queue
     *     that no instance consumes wait in Redis)
     * @param payload the job's data: any non-null object the application's Jackson mapper can
     *     write, at most {@code delay.max-payload-size} (64KB by default) as UTF-8 JSON; the
     *     handler gets it read back as its parameter type
     * @param delay how long from now the job waits, counted on the Redis server's clock from when
     *     it stores the job: zero (due at once) up to 36,500 days
     * @param key the business key, used as the job's id: not blank, at most 256 characters, no
     *     control characters; unique within the queue while its job exists
     * @return {@code key}, whether the job was created, an existing one kept, or the publish
     *     queued as the job's successor
     * @throws IllegalArgumentException when an argument is null or breaks its rule, naming it
     * @throws DelayQueueException when Redis cannot be reached or does not answer in time; a
     *     publish that timed out may have been stored all the same, so publish with a business
     *     key to be able to retry it safely
     */
    String publish(String queue, Object payload, Duration delay, String key);

    /**
     * Publishes a job that becomes due at {@code dueAt}, read with this JVM's clock.
     *
     * @param queue the queue's name: 1 to 100 letters, digits, {@code '.'}, {@code '_'} or
     *     {@code '-'}, starting with a letter or digit; it needs no declaring (the jobs of a queue
     *     that no instance consumes wait in Redis)
     * @param payload the job's data: any non-null object the application's Jackson mapper can
     *     write, at most {@code delay.max-payload-size} (64KB by default) as UTF-8 JSON; the
     *     handler gets it read back as its parameter type
     * @param dueAt when the job becomes due, read with this JVM's clock (a clock ahead of Redis's
     *     makes the job due later, one behind earlier): from 1970-01-01T00:00:00Z to
     *     9999-12-31T23:59:59.999Z; an instant in the past makes the job due at once
     * @return the generated job id, unique within the queue: keep it to cancel, reschedule or
     *     find the job
     * @throws IllegalArgumentException when an argument is null or breaks its rule, naming it
     * @throws DelayQueueException when Redis cannot be reached or does not answer in time; a
     *     publish that timed out may have been stored all the same, so publish with a business
     *     key to be able to retry it safely
     */
    String publishAt(String queue, Object payload, Instant dueAt);

    /**
     * Publishes a job with a business key that becomes due at {@code dueAt}. A job with this key
     * that exists is kept, or followed by this publish as its successor while a consumer holds it,
     * as by {@link #publish(String, Object, Duration, String)}.
     *
     * @param queue the queue's name: 1 to 100 letters, digits, {@code '.'}, {@code '_'} or
     *     {@code '-'}, starting with a letter or digit; it needs no declaring (the jobs of a queue
     *     that no instance consumes wait in Redis)
     * @param payload the job's data: any non-null object the application's Jackson mapper can
     *     write, at most {@code delay.max-payload-size} (64KB by default) as UTF-8 JSON; the
     *     handler gets it read back as its parameter type
     * @param dueAt when the job becomes due, read with this JVM's clock (a clock ahead of Redis's
     *     makes the job due later, one behind earlier): from 1970-01-01T00:00:00Z to
     *     9999-12-31T23:59:59.999Z; an instant in the past makes the job due at once
     * @param key the business key, used as the job's id: not blank, at most 256 characters, no
     *     control characters; unique within the queue while its job exists
     * @return {@code key}, whether the job was created, an existing one kept, or the publish
     *     queued as the job's successor
     * @throws IllegalArgumentException when an argument is null or breaks its rule, naming it
     * @throws DelayQueueException when Redis cannot be reached or does not answer in time; a
     *     publish that timed out may have been stored all the same, so publish with a business
     *     key to be able to retry it safely
     */
    String publishAt(String queue, Object payload, Instant dueAt, String key);

    /**
     * Publishes one job described by a request: its due time, business key, whether it replaces
     * an existing job, and whether it waits for the transaction's commit.
     *
     * @param queue the queue's name: 1 to 100 letters, digits, {@code '.'}, {@code '_'} or
     *     {@code '-'}, starting with a letter or digit; it needs no declaring (the jobs of a queue
     *     that no instance consumes wait in Redis)
     * @param request what to publish, built with {@link PublishRequest#of(Object)}; its payload,
     *     delay, due time and key follow the rules of the other {@code publish} methods
     * @return the job's id: the business key if the request has one, else a generated id; for a
     *     request that waits for the commit, the id the job will have, returned at once
     * @throws IllegalArgumentException when an argument is null or breaks its rule, naming it
     * @throws DelayQueueException when Redis cannot be reached or does not answer in time; a
     *     publish that timed out may have been stored all the same, so publish with a business
     *     key to be able to retry it safely
     */
    String publish(String queue, PublishRequest request);

    /**
     * Publishes many jobs to one queue: every request is checked first (one bad request publishes
     * nothing), then the jobs are stored in one Redis script call per 500 jobs, each call atomic.
     * Should Redis fail midway through a larger batch, the chunks before the failure stay stored;
     * publishing the same requests again with business keys is then safe.
     *
     * <p>Within the list, a key repeated later behaves as a publish onto the first one. Each request
     * chooses whether it waits for the transaction's commit ({@link PublishRequest#afterCommit()}).
     *
     * @param queue the queue's name: 1 to 100 letters, digits, {@code '.'}, {@code '_'} or
     *     {@code '-'}, starting with a letter or digit; it needs no declaring (the jobs of a queue
     *     that no instance consumes wait in Redis)
     * @param requests the jobs to publish, none of them null; an empty list publishes nothing
     *     and does not call Redis
     * @return the ids, in the order of {@code requests}
     * @throws IllegalArgumentException when {@code queue} or {@code requests} is invalid, or a
     *     request is null or has a bad payload, delay, due time or key; the message starts with
     *     {@code request <index>: } for the request at fault, and nothing is published
     * @throws DelayQueueException when Redis cannot be reached or does not answer in time; the
     *     chunks of 500 stored before the failure stay stored, and the exception does not say which
     */
    List<String> publishAll(String queue, List<PublishRequest> requests);

    /**
     * Cancels a job that is still waiting (delayed, or due and not yet taken by a consumer), with
     * its successor if one waits; of a running job, cancels only its successor. A job waiting
     * between two attempts is delayed and can be cancelled. A job published after commit does not
     * exist before the commit.
     *
     * @param queue the queue's name: 1 to 100 letters, digits, {@code '.'}, {@code '_'} or
     *     {@code '-'}, starting with a letter or digit
     * @param id the id a publish returned, or the job's business key
     * @return {@code true} if the job was waiting and is now gone, or a successor was (the held
     *     job then runs on and completes normally); {@code false} if it does not exist, is running
     *     or {@link JobState#PREFETCHED} (its consumer may be starting it) with no successor, was
     *     taken by a consumer a moment before, or is dead
     * @throws IllegalArgumentException when an argument is null or breaks its rule, naming it
     * @throws DelayQueueException when Redis cannot be reached or does not answer in time
     */
    boolean cancel(String queue, String id);

    /**
     * Moves a waiting job to a new due time. A due time at or before now makes the job ready at
     * once; a later one makes a ready job delayed again. Its attempts so far are kept. A
     * successor's due time is changed by publishing it again with
     * {@link PublishRequest#replaceExisting()}, not by this method.
     *
     * @param queue the queue's name: 1 to 100 letters, digits, {@code '.'}, {@code '_'} or
     *     {@code '-'}, starting with a letter or digit
     * @param id the id a publish returned, or the job's business key
     * @param dueAt when the job becomes due, read with this JVM's clock (a clock ahead of Redis's
     *     makes the job due later, one behind earlier): from 1970-01-01T00:00:00Z to
     *     9999-12-31T23:59:59.999Z; an instant in the past makes the job due at once
     * @return {@code true} if the job was waiting and now becomes due at {@code dueAt};
     *     {@code false}, changing nothing, when it does not exist, is
     *     {@link JobState#PREFETCHED}, running or dead
     * @throws IllegalArgumentException when an argument is null or breaks its rule, naming it
     * @throws DelayQueueException when Redis cannot be reached or does not answer in time
     */
    boolean reschedule(String queue, String id, Instant dueAt);

    /**
     * Moves a waiting job so that it becomes due after {@code delay} from now, as read by the
     * Redis server's clock. Its attempts so far are kept.
     *
     * @param queue the queue's name: 1 to 100 letters, digits, {@code '.'}, {@code '_'} or
     *     {@code '-'}, starting with a letter or digit
     * @param id the id a publish returned, or the job's business key
     * @param delay how long from now the job waits: zero (ready at once) up to 36,500 days
     * @return {@code true} if the job was waiting and now becomes due after {@code delay};
     *     {@code false}, changing nothing, when it does not exist, is
     *     {@link JobState#PREFETCHED}, running or dead
     * @throws IllegalArgumentException when an argument is null or breaks its rule, naming it
     * @throws DelayQueueException when Redis cannot be reached or does not answer in time
     */
    boolean reschedule(String queue, String id, Duration delay);

    /**
     * Looks a job up by id or business key.
     *
     * @param queue the queue's name: 1 to 100 letters, digits, {@code '.'}, {@code '_'} or
     *     {@code '-'}, starting with a letter or digit
     * @param id the id a publish returned, or the job's business key
     * @return the job's state, due and publish times, attempts, last error, payload and the
     *     successor waiting for it, if any; empty
     *     when there is no such job (never published, handled, cancelled, trimmed from the dead
     *     set, or published after a commit that has not happened yet)
     * @throws IllegalArgumentException when an argument is null or breaks its rule, naming it
     * @throws DelayQueueException when Redis cannot be reached or does not answer in time
     */
    Optional<JobInfo> find(String queue, String id);
}
