package dev.delayjobs;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import reactor.core.publisher.Mono;

/**
 * The operations of {@link DelayPublisher} for reactive applications (WebFlux): each returns a
 * {@link Mono} that calls Redis when subscribed, without blocking the subscribing thread, and
 * completes on Redisson's I/O thread when Redis answers. Auto-configured when Reactor is on the
 * classpath; it shares the blocking publisher's script calls, so that concurrent publishes through
 * either share one call per queue.
 *
 * <p>Every argument is checked as by {@link DelayPublisher}, and a bad one signals
 * {@link IllegalArgumentException} naming it, with nothing published; a Redis failure signals
 * {@link DelayQueueException}. A request that waits for the commit
 * ({@link PublishRequest#afterCommit()}, or {@code delay.publish.after-commit=true}) is stored after
 * the commit of the reactive transaction in the subscriber's context (Spring's
 * {@code TransactionalOperator} or {@code @Transactional} on a reactive method), and at once when
 * there is none.
 */
public interface ReactiveDelayPublisher {

    /**
     * Publishes a job that becomes due after {@code delay}, as {@link DelayPublisher#publish(String, Object, Duration)}.
     *
     * @param queue the queue's name, as for {@link DelayPublisher}
     * @param payload the job's data: any non-null object the application's Jackson mapper can write
     * @param delay how long from now the job waits: zero up to 36,500 days
     * @return the generated job id, once the job is stored
     */
    Mono<String> publish(String queue, Object payload, Duration delay);

    /**
     * Publishes a job whose id is the business {@code key}, as
     * {@link DelayPublisher#publish(String, Object, Duration, String)}: a job with this key that
     * exists is kept, or followed as its successor while a consumer holds it.
     *
     * @param queue the queue's name, as for {@link DelayPublisher}
     * @param payload the job's data: any non-null object the application's Jackson mapper can write
     * @param delay how long from now the job waits: zero up to 36,500 days
     * @param key the business key, used as the job's id
     * @return {@code key}, once the job is stored, kept or queued as a successor
     */
    Mono<String> publish(String queue, Object payload, Duration delay, String key);

    /**
     * Publishes a job that becomes due at {@code dueAt}, read with this JVM's clock.
     *
     * @param queue the queue's name, as for {@link DelayPublisher}
     * @param payload the job's data: any non-null object the application's Jackson mapper can write
     * @param dueAt when the job becomes due; an instant in the past makes it due at once
     * @return the generated job id, once the job is stored
     */
    Mono<String> publishAt(String queue, Object payload, Instant dueAt);

    /**
     * Publishes a job with a business key that becomes due at {@code dueAt}.
     *
     * @param queue the queue's name, as for {@link DelayPublisher}
     * @param payload the job's data: any non-null object the application's Jackson mapper can write
     * @param dueAt when the job becomes due; an instant in the past makes it due at once
     * @param key the business key, used as the job's id
     * @return {@code key}, once the job is stored, kept or queued as a successor
     */
    Mono<String> publishAt(String queue, Object payload, Instant dueAt, String key);

    /**
     * Publishes one job described by a request.
     *
     * @param queue the queue's name, as for {@link DelayPublisher}
     * @param request what to publish, built with {@link PublishRequest#of(Object)}
     * @return the job's id; for a request that waits for the commit of a transaction, the id the
     *     job will have, once the publish is registered with the transaction
     */
    Mono<String> publish(String queue, PublishRequest request);

    /**
     * Publishes many jobs to one queue, as {@link DelayPublisher#publishAll}: every request is
     * checked first (one bad request publishes nothing), then the jobs are stored in one script
     * call per 500 jobs, each call atomic.
     *
     * @param queue the queue's name, as for {@link DelayPublisher}
     * @param requests the jobs to publish, none of them null; an empty list publishes nothing
     * @return the ids, in the order of {@code requests}, once every job is stored
     */
    Mono<List<String>> publishAll(String queue, List<PublishRequest> requests);

    /**
     * Cancels a job that is still waiting, as {@link DelayPublisher#cancel}.
     *
     * @param queue the queue's name
     * @param id the id a publish returned, or the job's business key
     * @return whether the job (or its successor) was waiting and is now gone
     */
    Mono<Boolean> cancel(String queue, String id);

    /**
     * Moves a waiting job to a new due time, as {@link DelayPublisher#reschedule(String, String, Instant)}.
     *
     * @param queue the queue's name
     * @param id the id a publish returned, or the job's business key
     * @param dueAt when the job becomes due, read with this JVM's clock
     * @return whether the job was waiting and now becomes due at {@code dueAt}
     */
    Mono<Boolean> reschedule(String queue, String id, Instant dueAt);

    /**
     * Moves a waiting job so that it becomes due after {@code delay}, as
     * {@link DelayPublisher#reschedule(String, String, Duration)}.
     *
     * @param queue the queue's name
     * @param id the id a publish returned, or the job's business key
     * @param delay how long from now the job waits: zero up to 36,500 days
     * @return whether the job was waiting and now becomes due after {@code delay}
     */
    Mono<Boolean> reschedule(String queue, String id, Duration delay);

    /**
     * Looks a job up by id or business key, as {@link DelayPublisher#find}.
     *
     * @param queue the queue's name
     * @param id the id a publish returned, or the job's business key
     * @return the job, or empty when there is no such job
     */
    Mono<JobInfo> find(String queue, String id);
}
