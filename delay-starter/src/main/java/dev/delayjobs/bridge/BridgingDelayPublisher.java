package dev.delayjobs.bridge;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.JobInfo;
import dev.delayjobs.PublishRequest;
import dev.delayjobs.core.JobArguments;
import dev.delayjobs.core.PublishDeferral;
import dev.delayjobs.core.RedisDelayPublisher;
import dev.delayjobs.queue.QueueName;
import dev.delayjobs.redis.RedissonQueueStore;

/**
 * The {@link DelayPublisher} when queues are bridged: a publish to a bridged queue is offered to its
 * Redisson {@code RDelayedQueue} with the queue's codec, so that consumers still blocked in
 * {@code take()} keep receiving during a rolling migration; every other queue, and a bridged queue
 * with {@code redisson-publish=false}, goes to the native publisher. Keys, cancel, reschedule and
 * find are refused for a queue whose publishes are offered: its elements have no id, and finding one
 * would mean scanning the whole queue.
 */
public final class BridgingDelayPublisher implements DelayPublisher {

    private final DelayPublisher nativePublisher;
    private final BridgedQueues queues;
    private final RedissonQueueStore store;
    private final PublishDeferral deferral;
    private final boolean afterCommitByDefault;

    public BridgingDelayPublisher(DelayPublisher nativePublisher, BridgedQueues queues, RedissonQueueStore store,
            PublishDeferral deferral, boolean afterCommitByDefault) {
        this.nativePublisher = nativePublisher;
        this.queues = queues;
        this.store = store;
        this.deferral = deferral;
        this.afterCommitByDefault = afterCommitByDefault;
    }

    /** The publisher that serves the native queues. */
    public DelayPublisher nativePublisher() {
        return nativePublisher;
    }

    @Override
    public String publish(String queue, Object payload, Duration delay) {
        return publish(queue, PublishRequest.of(payload).delay(JobArguments.delay(delay)));
    }

    @Override
    public String publish(String queue, Object payload, Duration delay, String key) {
        return publish(queue, PublishRequest.of(payload).delay(JobArguments.delay(delay)).key(JobArguments.id(key)));
    }

    @Override
    public String publishAt(String queue, Object payload, Instant dueAt) {
        return publish(queue, PublishRequest.of(payload).at(JobArguments.dueAt(dueAt)));
    }

    @Override
    public String publishAt(String queue, Object payload, Instant dueAt, String key) {
        return publish(queue, PublishRequest.of(payload).at(JobArguments.dueAt(dueAt)).key(JobArguments.id(key)));
    }

    @Override
    public String publish(String queue, PublishRequest request) {
        return publishAll(queue, List.of(request)).get(0);
    }

    /**
     * For a bridged queue, offers each element (one Redisson call each) and returns ids that name
     * no job: an {@code RDelayedQueue} element has none. Those waiting for a commit are offered
     * after it, like native publishes.
     */
    @Override
    public List<String> publishAll(String queue, List<PublishRequest> requests) {
        Optional<BridgedQueue> bridged = queues.find(QueueName.of(queue)).filter(BridgedQueue::offersPublishes);
        if (bridged.isEmpty()) {
            return nativePublisher.publishAll(queue, requests);
        }
        if (requests == null) {
            throw new IllegalArgumentException("requests must not be null");
        }
        BridgedQueue target = bridged.get();
        List<Offer> now = new ArrayList<>();
        List<Offer> later = new ArrayList<>();
        List<String> ids = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            PublishRequest request = requests.get(i);
            if (request == null) {
                throw new IllegalArgumentException("request " + i + ": publish request must not be null");
            }
            if (request.key() != null) {
                throw BridgedQueues.refused(target, "publishing with a business key");
            }
            if (request.group() != null) {
                throw BridgedQueues.refused(target, "publishing into a group");
            }
            Object element;
            try {
                element = target.format().toElement(request.payload());
            }
            catch (IllegalArgumentException ex) {
                throw new IllegalArgumentException("request " + i + ": " + ex.getMessage(), ex);
            }
            Boolean choice = request.afterCommitChoice();
            boolean waitForCommit = choice != null ? choice : afterCommitByDefault;
            (waitForCommit ? later : now).add(new Offer(element, request));
            ids.add(RedisDelayPublisher.newId());
        }
        if (later.isEmpty() || !deferral.deferToCommit(() -> offer(target, later))) {
            now.addAll(later);
        }
        offer(target, now);
        return ids;
    }

    private void offer(BridgedQueue queue, List<Offer> offers) {
        for (Offer offer : offers) {
            store.offer(queue.target(), queue.format().codec(), offer.element(), offer.delay());
        }
    }

    @Override
    public boolean cancel(String queue, String id) {
        refuseIfBridged(queue, "cancel by id");
        return nativePublisher.cancel(queue, id);
    }

    @Override
    public boolean reschedule(String queue, String id, Instant dueAt) {
        refuseIfBridged(queue, "reschedule by id");
        return nativePublisher.reschedule(queue, id, dueAt);
    }

    @Override
    public boolean reschedule(String queue, String id, Duration delay) {
        refuseIfBridged(queue, "reschedule by id");
        return nativePublisher.reschedule(queue, id, delay);
    }

    @Override
    public Optional<JobInfo> find(String queue, String id) {
        refuseIfBridged(queue, "find by id");
        return nativePublisher.find(queue, id);
    }

    private void refuseIfBridged(String queue, String what) {
        queues.find(QueueName.of(queue)).filter(BridgedQueue::offersPublishes).ifPresent(bridged -> {
            throw BridgedQueues.refused(bridged, what);
        });
    }

    /** An element to offer, due after {@link #delay()} from the moment it is offered. */
    private record Offer(Object element, PublishRequest request) {

        Duration delay() {
            if (request.dueAt() != null) {
                Duration until = Duration.between(Instant.now(), request.dueAt());
                return until.isNegative() ? Duration.ZERO : until;
            }
            return request.delay();
        }
    }
}
