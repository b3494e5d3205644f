package dev.delayjobs.actuate;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeSet;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import dev.delayjobs.redis.QueueStats;
import dev.delayjobs.redis.RedisJobStore;

/**
 * {@code delayQueues} health: DOWN when Redis cannot be reached; the configured status (DOWN by
 * default) when a queue that has consumers holds a job overdue by more than the threshold, which
 * is what a stalled queue looks like; UP otherwise. Details list every queue's counts.
 */
public class DelayQueuesHealthIndicator extends AbstractHealthIndicator {

    private final RedisJobStore store;
    private final Duration overdueThreshold;
    private final Status overdueStatus;

    public DelayQueuesHealthIndicator(RedisJobStore store, Duration overdueThreshold, Status overdueStatus) {
        super("Delay queues health check failed");
        this.store = store;
        this.overdueThreshold = overdueThreshold;
        this.overdueStatus = overdueStatus;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        Map<String, Object> queues = new LinkedHashMap<>();
        Map<String, Long> overdue = new LinkedHashMap<>();
        for (String queue : new TreeSet<>(store.knownQueues())) {
            QueueStats stats = store.stats(queue);
            long lateness = stats.oldestLatenessMillis();
            Map<String, Object> detail = new LinkedHashMap<>();
            detail.put("delayed", stats.delayed());
            detail.put("ready", stats.ready());
            detail.put("running", stats.running());
            detail.put("dead", stats.dead());
            detail.put("consumers", stats.instances().size());
            detail.put("oldestOverdueMillis", lateness);
            queues.put(queue, detail);
            if (!stats.instances().isEmpty() && lateness > overdueThreshold.toMillis()) {
                overdue.put(queue, lateness);
            }
        }
        if (overdue.isEmpty()) {
            builder.up();
        }
        else {
            builder.status(overdueStatus).withDetail("overdue", overdue)
                    .withDetail("overdueThresholdMillis", overdueThreshold.toMillis());
        }
        builder.withDetail("queues", queues);
    }
}
