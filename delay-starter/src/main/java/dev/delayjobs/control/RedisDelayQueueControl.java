package dev.delayjobs.control;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.delayjobs.DelayQueueControl;
import dev.delayjobs.RateLimit;
import dev.delayjobs.partition.PartitionedQueues;
import dev.delayjobs.partition.QueueLayout;
import dev.delayjobs.queue.QueueName;
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
        QueueName name = QueueName.of(queue);
        // a queue paused before its first publish or consumer is shown by the endpoint all the same
        store.registerQueue(name);
        boolean paused = queues.onEveryPartition(name, partition -> controls.pause(partition, false)).contains(true);
        if (paused) {
            logger.info("Queue '" + name + "' paused: no instance claims its jobs until it is resumed");
        }
        return paused;
    }

    @Override
    public boolean resume(String queue) {
        QueueName name = QueueName.of(queue);
        boolean resumed = queues.onEveryPartition(name, partition -> controls.resume(partition)).contains(true);
        if (resumed) {
            logger.info("Queue '" + name + "' resumed");
        }
        return resumed;
    }

    @Override
    public void setRateLimit(String queue, @Nullable RateLimit limit) {
        QueueName name = QueueName.of(queue);
        QueueLayout layout = queues.layout(name);
        if (limit != null && limit.permits() < layout.size()) {
            throw new IllegalArgumentException("rate limit " + limit + " allows fewer jobs per window than queue '" + name
                    + "' has partitions (" + layout.size() + "), each of which lets its share start: allow at least "
                    + layout.size());
        }
        store.registerQueue(name);
        PartitionedQueues.onEveryPartition(layout, partition -> {
            controls.setRateLimit(partition, limit);
            return null;
        });
        logger.info(limit == null ? "Queue '" + name + "': runtime rate limit cleared (each instance applies its configured one)"
                : "Queue '" + name + "': rate limit set to " + limit + " for every instance");
    }

    @Override
    public QueueControlState state(String queue) {
        // set on every partition at once: the first one's stands for the queue
        return controls.state(queues.layout(QueueName.of(queue)).all().get(0));
    }
}
