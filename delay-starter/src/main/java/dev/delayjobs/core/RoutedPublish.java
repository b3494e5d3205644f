package dev.delayjobs.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

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
 * at most {@value #BATCH_CHUNK}, each job to the partition its id maps to (one shared script call
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
            List<NewJob> chunk = new ArrayList<>(jobs.subList(from, Math.min(jobs.size(), from + BATCH_CHUNK)));
            int created = publishChunk(queue, chunk, generated, from);
            chunk.forEach(job -> ids.add(job.id()));
            events.published(queue.value(), created);
        }
        return ids;
    }

    /**
     * Stores one chunk; returns how many jobs it created or replaced, or stored as the successor of a
     * held job (which becomes the job when the held one ends). A kept existing job answers to
     * the same id, so for a business key the outcome only matters to the count. A generated id that
     * met an existing job (72 random bits: next to never) is drawn again, in {@code chunk} too.
     */
    private int publishChunk(QueueName queue, List<NewJob> chunk, boolean[] generated, int offset) {
        List<NewJob> attempt = chunk;
        List<Integer> positions = null;
        int created = 0;
        while (true) {
            List<PublishOutcome> outcomes = publishRouted(queue, attempt);
            List<NewJob> clashed = new ArrayList<>();
            List<Integer> clashedAt = new ArrayList<>();
            for (int i = 0; i < outcomes.size(); i++) {
                int at = positions == null ? i : positions.get(i);
                if (outcomes.get(i) == PublishOutcome.QUEUED_AS_SUCCESSOR && logger.isDebugEnabled()) {
                    logger.debug("Queue '" + queue + "': job '" + attempt.get(i).id() + "' is held by a consumer; the "
                            + "publish waits as its successor");
                }
                if (outcomes.get(i) != PublishOutcome.KEPT_EXISTING) {
                    created++;
                }
                else if (generated[offset + at]) {
                    NewJob job = attempt.get(i);
                    NewJob fresh = new NewJob(RedisDelayPublisher.newId(), job.relative(), job.time(), false, job.payload(), true);
                    chunk.set(at, fresh);
                    clashed.add(fresh);
                    clashedAt.add(at);
                }
            }
            if (clashed.isEmpty()) {
                return created;
            }
            attempt = clashed;
            positions = clashedAt;
        }
    }

    /**
     * Stores jobs in the partitions their ids map to, one call per partition, and returns their
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
                    List<PublishOutcome> stored = coalescer.publish(layout.all().get(partition.getKey()),
                            RedisDelayPublisher.pick(jobs, positions));
                    for (int i = 0; i < stored.size(); i++) {
                        outcomes[positions.get(i)] = stored.get(i);
                    }
                }
                return List.of(outcomes);
            }
            catch (LayoutChangedException ex) {
                if (changes >= 3) {
                    throw new DelayQueueException("Queue '" + queue + "': its partition layout kept changing while "
                            + "publishing; the jobs not yet stored were not published", ex);
                }
                layout = queues.layoutChanged(queue, ex.partitions());
            }
        }
    }

    /** The positions of the jobs not stored yet, by the index of the partition their ids map to. */
    private static Map<Integer, List<Integer>> unstoredByPartition(QueueLayout layout, List<NewJob> jobs,
            PublishOutcome[] outcomes) {
        Map<Integer, List<Integer>> byPartition = new TreeMap<>();
        for (int i = 0; i < jobs.size(); i++) {
            if (outcomes[i] == null) {
                byPartition.computeIfAbsent(layout.indexOf(jobs.get(i).id()), p -> new ArrayList<>()).add(i);
            }
        }
        return byPartition;
    }
}
