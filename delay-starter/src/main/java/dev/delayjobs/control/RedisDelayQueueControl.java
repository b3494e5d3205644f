package dev.delayjobs.control;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.delayjobs.DelayQueueControl;
import dev.delayjobs.RateLimit;
import dev.delayjobs.core.JobArguments;
import dev.delayjobs.partition.PartitionedQueues;
import dev.delayjobs.partition.QueueLayout;
import dev.delayjobs.redis.QueueControls;
import dev.delayjobs.redis.RedisJobStore;

/**
 * {@link DelayQueueControl} on the queue controls kept in Redis. Each change is logged at INFO:
 * an operator's action on a queue is worth finding in the logs of the instance that took it.
 */
public final class RedisDelayQueueControl implements DelayQueueControl {

    private static final Log logger = LogFactory.getLog(RedisDelayQueueControl.class);

    private final QueueControls controls;
    private final RedisJobStore store;
    private final PartitionedQueues queues;

    /** @param queues the partitions of each queue: a change applies to every one of them */
    public RedisDelayQueueControl(QueueControls controls, RedisJobStore store, PartitionedQueues queues) {
        this.controls = controls;
        this.store = store;
        this.queues = queues;
    }

    @Override
    public boolean pause(String queue) {
        JobArguments.queue(queue);
        // a queue paused before its first publish or consumer is shown by the endpoint all the same
        store.registerQueue(queue);
        boolean paused = false;
        for (String partition : queues.layout(queue).partitions()) {
            paused |= controls.pause(partition, false);
        }
        if (paused) {
            logger.info("Queue '" + queue + "' paused: no instance claims its jobs until it is resumed");
        }
        return paused;
    }

    @Override
    public boolean resume(String queue) {
        JobArguments.queue(queue);
        boolean resumed = false;
        for (String partition : queues.layout(queue).partitions()) {
            resumed |= controls.resume(partition);
        }
        if (resumed) {
            logger.info("Queue '" + queue + "' resumed");
        }
        return resumed;
    }

    @Override
    public void setRateLimit(String queue, @Nullable RateLimit limit) {
        JobArguments.queue(queue);
        QueueLayout layout = queues.layout(queue);
        if (limit != null && limit.permits() < layout.size()) {
            throw new IllegalArgumentException("rate limit " + limit + " allows fewer jobs per window than queue '" + queue
                    + "' has partitions (" + layout.size() + "), each of which lets its share start: allow at least "
                    + layout.size());
        }
        store.registerQueue(queue);
        for (String partition : layout.partitions()) {
            controls.setRateLimit(partition, limit);
        }
        logger.info(limit == null ? "Queue '" + queue + "': runtime rate limit cleared (each instance applies its configured one)"
                : "Queue '" + queue + "': rate limit set to " + limit + " for every instance");
    }

    @Override
    public QueueControlState state(String queue) {
        JobArguments.queue(queue);
        // set on every partition at once: the first one's stands for the queue
        return controls.state(queues.layout(queue).partitions().get(0));
    }
}
