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
     * @return the generated job id
     */
    String publish(String queue, Object payload, Duration delay);

    /**
     * Publishes a job whose id is the business {@code key}. When a job with this key is waiting or
     * dead it is kept and its id returned: publishing the same key twice creates one job. Use
     * {@link PublishRequest#replaceExisting()} to replace it. When a consumer holds the job (running,
     * or prefetched), the publish waits as the job's successor ({@link JobInfo#successor()}), which
     * becomes the job when the held one is acked or buried: a new intent is never dropped because
     * the old job was running.
     * @return {@code key}
     */
    String publish(String queue, Object payload, Duration delay, String key);

    /** Publishes a job that becomes due at {@code dueAt}, read with this JVM's clock. */
    String publishAt(String queue, Object payload, Instant dueAt);

    /** Publishes a job with a business key that becomes due at {@code dueAt}. */
    String publishAt(String queue, Object payload, Instant dueAt, String key);

    /** Publishes one job described by a request. */
    String publish(String queue, PublishRequest request);

    /**
     * Publishes many jobs to one queue: every request is checked first (one bad request publishes
     * nothing), then the jobs are stored in one Redis script call per 500 jobs, each call atomic.
     * Should Redis fail midway through a larger batch, the chunks before the failure stay stored;
     * publishing the same requests again with business keys is then safe.
     * @return the ids, in the order of {@code requests}
     */
    List<String> publishAll(String queue, List<PublishRequest> requests);

    /**
     * Cancels a job that is still waiting (delayed, or due and not yet taken by a consumer), with
     * its successor if one waits; of a running job, cancels only its successor.
     * @return {@code true} if the job was waiting and is now gone, or a successor was; {@code false}
     *     if it does not exist, is running with no successor, or is dead
     */
    boolean cancel(String queue, String id);

    /**
     * Moves a waiting job to a new due time.
     * @return {@code true} if the job was waiting and now becomes due at {@code dueAt}
     */
    boolean reschedule(String queue, String id, Instant dueAt);

    /** Moves a waiting job so that it becomes due after {@code delay} from now. */
    boolean reschedule(String queue, String id, Duration delay);

    /** Looks a job up by id or business key. */
    Optional<JobInfo> find(String queue, String id);
}
