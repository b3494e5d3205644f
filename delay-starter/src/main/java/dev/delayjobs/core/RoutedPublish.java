package dev.delayjobs.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.delayjobs.DelayQueueException;
import dev.delayjobs.partition.PartitionedQueues;
import dev.delayjobs.partition.QueueLayout;
import dev.delayjobs.queue.QueueName;
import dev.delayjobs.redis.LayoutChangedException;
import dev.delayjobs.redis.NewJob;
import dev.delayjobs.redis.PublishOutcome;

/**
 * The storing half of a publish, once every argument is checked: the jobs go to Redis in chunks of
 * at most {@value #BATCH_CHUNK}, each job to the partition its group, or its id when it has none, maps to (one shared script call
 * per partition, {@link PublishCoalescer}), routed again when another application laid the queue
 * out anew; a generated id that met an existing job is drawn again.
 */
final class RoutedPublish {

    private static final Log logger = LogFactory.getLog(RoutedPublish.class);

    /** Jobs per script call: bounds how long one call holds Redis. */
    static final int BATCH_CHUNK = 500;

    private final PartitionedQueues queues;
    private final PublishCoalescer coalescer;
    private final JobEvents events;

    RoutedPublish(PartitionedQueues queues, PublishCoalescer coalescer, JobEvents events) {
        this.queues = queues;
        this.coalescer = coalescer;
        this.events = events;
    }

    /**
     * Stores jobs in chunks; returns their ids in order (a generated id that clashed is drawn again).
     * {@code generated[i]} tells whether the id of {@code jobs.get(i)} was generated, not a key.
     */
    List<String> store(QueueName queue, List<NewJob> jobs, boolean[] generated) {
        List<String> ids = new ArrayList<>(jobs.size());
        for (int from = 0; from < jobs.size(); from += BATCH_CHUNK) {
            List<NewJob> chunk = chunk(jobs, from);
            int created = publishChunk(queue, chunk, generated, from);
            stored(queue, chunk, created, ids);
        }
        return ids;
    }

    /**
     * {@link #store} without blocking a thread: the same chunks, routing and outcomes, each call sent
     * when the one before answered; completes on Redisson's I/O thread.
     */
    CompletableFuture<List<String>> storeAsync(QueueName queue, List<NewJob> jobs, boolean[] generated) {
        List<String> ids = new ArrayList<>(jobs.size());
        return storeAsync(queue, jobs, generated, 0, ids).thenApply(done -> ids);
    }

    private CompletableFuture<Void> storeAsync(QueueName queue, List<NewJob> jobs, boolean[] generated, int from, List<String> ids) {
        if (from >= jobs.size()) {
            return CompletableFuture.completedFuture(null);
        }
        List<NewJob> chunk = chunk(jobs, from);
        return publishChunkAsync(queue, chunk, generated, from, new Attempt(chunk, null), 0).thenCompose(created -> {
            stored(queue, chunk, created, ids);
            return storeAsync(queue, jobs, generated, from + BATCH_CHUNK, ids);
        });
    }

    private static List<NewJob> chunk(List<NewJob> jobs, int from) {
        return new ArrayList<>(jobs.subList(from, Math.min(jobs.size(), from + BATCH_CHUNK)));
    }

    private void stored(QueueName queue, List<NewJob> chunk, int created, List<String> ids) {
        chunk.forEach(job -> ids.add(job.id()));
        events.published(queue.value(), created);
    }

    /**
     * Stores one chunk; returns how many jobs it created or replaced, or stored as the successor of a
     * held job (which becomes the job when the held one ends). A kept existing job answers to
     * the same id, so for a business key the outcome only matters to the count. A generated id that
     * met an existing job (72 random bits: next to never) is drawn again, in {@code chunk} too.
     */
    private int publishChunk(QueueName queue, List<NewJob> chunk, boolean[] generated, int offset) {
        Attempt attempt = new Attempt(chunk, null);
        int created = 0;
        while (attempt != null) {
            List<PublishOutcome> outcomes = publishRouted(queue, attempt.jobs);
            created += attempt.created(queue, outcomes);
            attempt = attempt.clashed(outcomes, chunk, generated, offset);
        }
        return created;
    }

    private CompletableFuture<Integer> publishChunkAsync(QueueName queue, List<NewJob> chunk, boolean[] generated, int offset,
            Attempt attempt, int createdBefore) {
        return publishRoutedAsync(queue, attempt.jobs).thenCompose(outcomes -> {
            int created = createdBefore + attempt.created(queue, outcomes);
            Attempt next = attempt.clashed(outcomes, chunk, generated, offset);
            return next == null ? CompletableFuture.completedFuture(created)
                    : publishChunkAsync(queue, chunk, generated, offset, next, created);
        });
    }

    /**
     * The jobs of one try at storing a chunk: the whole chunk, then only those whose generated id
     * clashed, drawn again; {@code positions} are their places in the chunk (null: all, in order).
     */
    private record Attempt(List<NewJob> jobs, List<Integer> positions) {

        /** How many of the outcomes count as published (all but a kept existing job). */
        int created(QueueName queue, List<PublishOutcome> outcomes) {
            int created = 0;
            for (int i = 0; i < outcomes.size(); i++) {
                if (outcomes.get(i) == PublishOutcome.QUEUED_AS_SUCCESSOR && logger.isDebugEnabled()) {
                    logger.debug("Queue '" + queue + "': job '" + jobs.get(i).id() + "' is held by a consumer; the "
                            + "publish waits as its successor");
                }
                if (outcomes.get(i) != PublishOutcome.KEPT_EXISTING) {
                    created++;
                }
            }
            return created;
        }

        /** The next try: the jobs whose generated id met an existing job, with new ids (set in {@code chunk} too); null when none. */
        Attempt clashed(List<PublishOutcome> outcomes, List<NewJob> chunk, boolean[] generated, int offset) {
            List<NewJob> clashed = new ArrayList<>();
            List<Integer> clashedAt = new ArrayList<>();
            for (int i = 0; i < outcomes.size(); i++) {
                int at = positions == null ? i : positions.get(i);
                if (outcomes.get(i) == PublishOutcome.KEPT_EXISTING && generated[offset + at]) {
                    NewJob job = jobs.get(i);
                    NewJob fresh = new NewJob(RedisDelayPublisher.newId(), job.relative(), job.time(), false, job.payload(), true,
                            job.group());
                    chunk.set(at, fresh);
                    clashed.add(fresh);
                    clashedAt.add(at);
                }
            }
            return clashed.isEmpty() ? null : new Attempt(clashed, clashedAt);
        }
    }

    /**
     * Stores jobs in the partitions their groups (or ids) map to, one call per partition, and returns their
     * outcomes in order. A publish that meets a layout changed by another application stored nothing
     * in that partition: the jobs not stored yet are routed again by the new layout.
     */
    private List<PublishOutcome> publishRouted(QueueName queue, List<NewJob> jobs) {
        QueueLayout layout = queues.layout(queue);
        PublishOutcome[] outcomes = new PublishOutcome[jobs.size()];
        for (int changes = 0; ; changes++) {
            try {
                for (Map.Entry<Integer, List<Integer>> partition : unstoredByPartition(layout, jobs, outcomes).entrySet()) {
                    List<Integer> positions = partition.getValue();
                    place(outcomes, positions, coalescer.publish(layout.all().get(partition.getKey()),
                            RedisDelayPublisher.pick(jobs, positions)));
                }
                return List.of(outcomes);
            }
            catch (LayoutChangedException ex) {
                layout = routeAgain(queue, changes, ex);
            }
        }
    }

    /** {@link #publishRouted} without blocking: the partitions one after the other, each call sent when the one before answered. */
    private CompletableFuture<List<PublishOutcome>> publishRoutedAsync(QueueName queue, List<NewJob> jobs) {
        PublishOutcome[] outcomes = new PublishOutcome[jobs.size()];
        return queues.layoutAsync(queue).thenCompose(layout -> publishRoutedAsync(queue, jobs, layout, outcomes, 0));
    }

    private CompletableFuture<List<PublishOutcome>> publishRoutedAsync(QueueName queue, List<NewJob> jobs, QueueLayout layout,
            PublishOutcome[] outcomes, int changes) {
        CompletableFuture<Void> partitions = CompletableFuture.completedFuture(null);
        for (Map.Entry<Integer, List<Integer>> partition : unstoredByPartition(layout, jobs, outcomes).entrySet()) {
            List<Integer> positions = partition.getValue();
            partitions = partitions.thenCompose(done -> coalescer.publishAsync(layout.all().get(partition.getKey()),
                    RedisDelayPublisher.pick(jobs, positions)).thenAccept(stored -> place(outcomes, positions, stored)));
        }
        return partitions.handle((done, failure) -> {
            if (failure == null) {
                return CompletableFuture.completedFuture(List.of(outcomes));
            }
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
            if (cause instanceof LayoutChangedException changed) {
                return publishRoutedAsync(queue, jobs, routeAgain(queue, changes, changed), outcomes, changes + 1);
            }
            return CompletableFuture.<List<PublishOutcome>>failedFuture(cause);
        }).thenCompose(next -> next);
    }

    private static void place(PublishOutcome[] outcomes, List<Integer> positions, List<PublishOutcome> stored) {
        for (int i = 0; i < stored.size(); i++) {
            outcomes[positions.get(i)] = stored.get(i);
        }
    }

    /** The layout to route the jobs not stored yet by, after the {@code changes}-th change met; gives up after 3. */
    private QueueLayout routeAgain(QueueName queue, int changes, LayoutChangedException ex) {
        if (changes >= 3) {
            throw new DelayQueueException("Queue '" + queue + "': its partition layout kept changing while "
                    + "publishing; the jobs not yet stored were not published", ex);
        }
        return queues.layoutChanged(queue, ex.partitions());
    }

    /** The positions of the jobs not stored yet, by the index of the partition their groups (or ids) map to. */
    private static Map<Integer, List<Integer>> unstoredByPartition(QueueLayout layout, List<NewJob> jobs,
            PublishOutcome[] outcomes) {
        Map<Integer, List<Integer>> byPartition = new TreeMap<>();
        for (int i = 0; i < jobs.size(); i++) {
            if (outcomes[i] == null) {
                byPartition.computeIfAbsent(layout.indexOf(jobs.get(i).id(), jobs.get(i).group()), p -> new ArrayList<>()).add(i);
            }
        }
        return byPartition;
    }
}
