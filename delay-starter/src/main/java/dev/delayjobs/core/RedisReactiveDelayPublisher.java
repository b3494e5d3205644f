package dev.delayjobs.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

import dev.delayjobs.JobInfo;
import dev.delayjobs.PublishRequest;
import dev.delayjobs.ReactiveDelayPublisher;
import dev.delayjobs.partition.PartitionedQueues;
import dev.delayjobs.queue.QueueName;

/**
 * The {@link ReactiveDelayPublisher} of the starter: a face of {@link RedisDelayPublisher} (its
 * checks, routing, coalescing and outcomes, without blocking), whose jobs that wait for a commit go
 * to a reactive transaction of the subscriber's context.
 */
public final class RedisReactiveDelayPublisher implements ReactiveDelayPublisher {

    private final RedisDelayPublisher publisher;
    private final PartitionedQueues queues;
    private final CommitDeferral deferral;
    private final BiConsumer<String, String> refusal;

    /**
     * @param publisher the blocking publisher whose logic and script calls this one shares
     * @param deferral where publishes that wait for a commit go ({@link CommitDeferral#NONE}: stored at once)
     * @param refusal given a queue and what is asked of it, throws when this publisher does not
     *     serve the queue (one bridged to a Redisson {@code RDelayedQueue} that offers it its publishes)
     */
    public RedisReactiveDelayPublisher(RedisDelayPublisher publisher, CommitDeferral deferral, BiConsumer<String, String> refusal) {
        this.publisher = publisher;
        this.queues = publisher.queues();
        this.deferral = deferral;
        this.refusal = refusal;
    }

    @Override
    public Mono<String> publish(String queue, Object payload, Duration delay) {
        return Mono.defer(() -> publish(queue, PublishRequest.of(payload).delay(JobArguments.delay(delay))));
    }

    @Override
    public Mono<String> publish(String queue, Object payload, Duration delay, String key) {
        return Mono.defer(() -> publish(queue, PublishRequest.of(payload).delay(JobArguments.delay(delay)).key(JobArguments.id(key))));
    }

    @Override
    public Mono<String> publishAt(String queue, Object payload, Instant dueAt) {
        return Mono.defer(() -> publish(queue, PublishRequest.of(payload).at(JobArguments.dueAt(dueAt))));
    }

    @Override
    public Mono<String> publishAt(String queue, Object payload, Instant dueAt, String key) {
        return Mono.defer(() -> publish(queue, PublishRequest.of(payload).at(JobArguments.dueAt(dueAt)).key(JobArguments.id(key))));
    }

    @Override
    public Mono<String> publish(String queue, PublishRequest request) {
        return Mono.defer(() -> publishAll(queue, List.of(JobArguments.request(request))).map(ids -> ids.get(0)));
    }

    @Override
    public Mono<List<String>> publishAll(String queue, List<PublishRequest> requests) {
        return Mono.deferContextual(context -> served(queue, "publish", () -> publisher.publishAllAsync(queue, requests,
                within(deferral, context))));
    }

    @Override
    public Mono<Boolean> cancel(String queue, String id) {
        return served(queue, "cancel by id", () -> queues.cancelAsync(QueueName.of(queue), JobArguments.id(id)));
    }

    @Override
    public Mono<Boolean> reschedule(String queue, String id, Instant dueAt) {
        return served(queue, "reschedule by id", () -> queues.rescheduleAsync(QueueName.of(queue), JobArguments.id(id), false,
                JobArguments.dueAt(dueAt).toEpochMilli()));
    }

    @Override
    public Mono<Boolean> reschedule(String queue, String id, Duration delay) {
        return served(queue, "reschedule by id", () -> queues.rescheduleAsync(QueueName.of(queue), JobArguments.id(id), true,
                JobArguments.delay(delay).toMillis()));
    }

    @Override
    public Mono<JobInfo> find(String queue, String id) {
        return served(queue, "find by id", () -> queues.findAsync(QueueName.of(queue), JobArguments.id(id))).flatMap(Mono::justOrEmpty);
    }

    /**
     * The call, made when subscribed; what the checks throw is signalled, nothing sent. Its
     * cancellation does not cancel the Redis call (which may have been sent).
     */
    private <T> Mono<T> served(String queue, String what, Supplier<CompletableFuture<T>> call) {
        return Mono.fromFuture(() -> {
            refusal.accept(queue, what);
            return call.get();
        }, true);
    }

    /**
     * Where a reactive publish that waits for a commit goes: the starter's implementation, with
     * spring-tx's reactive transactions, is {@code dev.delayjobs.transaction.ReactiveAfterCommitDeferral}.
     */
    @FunctionalInterface
    public interface CommitDeferral {

        /** Defers nothing: every publish is stored at once. */
        CommitDeferral NONE = publish -> Mono.just(false);

        /**
         * Registers {@code publish} to run after the commit of the transaction in the subscriber's
         * context, and never if it rolls back; emits whether it did ({@code false}: no transaction,
         * nothing registered).
         */
        Mono<Boolean> deferToCommit(Supplier<CompletableFuture<Void>> publish);
    }

    /** The deferral of the async core, with the subscriber's context in which the transaction is looked up. */
    private static RedisDelayPublisher.AsyncDeferral within(CommitDeferral deferral, ContextView context) {
        return publish -> deferral.deferToCommit(publish).contextWrite(context).toFuture();
    }
}
