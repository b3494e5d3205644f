package dev.delayjobs.control;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.delayjobs.DelayQueueControl;
import dev.delayjobs.RateLimit;
import dev.delayjobs.core.JobArguments;
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

    public RedisDelayQueueControl(QueueControls controls, RedisJobStore store) {
        this.controls = controls;
        this.store = store;
    }

    @Override
    public boolean pause(String queue) {
        JobArguments.queue(queue);
        // a queue paused before its first publish or consumer is shown by the endpoint all the same
        store.registerQueue(queue);
        boolean paused = controls.pause(queue, false);
        if (paused) {
            logger.info("Queue '" + queue + "' paused: no instance claims its jobs until it is resumed");
        }
        return paused;
    }

    @Override
    public boolean resume(String queue) {
        JobArguments.queue(queue);
        boolean resumed = controls.resume(queue);
        if (resumed) {
            logger.info("Queue '" + queue + "' resumed");
        }
        return resumed;
    }

    @Override
    public void setRateLimit(String queue, @Nullable RateLimit limit) {
        JobArguments.queue(queue);
        store.registerQueue(queue);
        controls.setRateLimit(queue, limit);
        logger.info(limit == null ? "Queue '" + queue + "': runtime rate limit cleared (each instance applies its configured one)"
                : "Queue '" + queue + "': rate limit set to " + limit + " for every instance");
    }

    @Override
    public QueueControlState state(String queue) {
        JobArguments.queue(queue);
        return controls.state(queue);
    }
}
