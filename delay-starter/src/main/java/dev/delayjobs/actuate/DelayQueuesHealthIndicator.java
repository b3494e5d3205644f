package dev.delayjobs.actuate;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

import dev.delayjobs.redis.MemoryPolicies;
import dev.delayjobs.redis.QueueStats;
import dev.delayjobs.partition.PartitionedQueues;
import dev.delayjobs.partition.PartitionedStats;
import dev.delayjobs.queue.QueueName;

/**
 * {@code delayQueues} health: DOWN when Redis cannot be reached; the configured status (DOWN by
 * default) when a queue that has consumers holds a job overdue by more than the threshold, which
 * is what a stalled queue looks like (a paused queue is not: its jobs wait on purpose); UP
 * otherwise. Details list every queue's counts and whether it is paused, and each Redis master's
 * {@code maxmemory-policy} (with a warning for one that evicts: the queues need {@code noeviction}).
 */
public class DelayQueuesHealthIndicator implements HealthIndicator {

    private static final Log logger = LogFactory.getLog(DelayQueuesHealthIndicator.class);

    private final PartitionedQueues store;
    private final Duration overdueThreshold;
    private final Status overdueStatus;
    private final Duration cacheTtl;
    private final @Nullable MemoryPolicies memoryPolicies;
    private volatile Health last;
    private volatile long lastAt;

    /**
     * @param cacheTtl how long one check's result answers (it costs one Redis call per queue, and
     *     probes may call often); zero checks every time
     */
    public DelayQueuesHealthIndicator(PartitionedQueues store, Duration overdueThreshold, Status overdueStatus,
            Duration cacheTtl) {
        this(store, overdueThreshold, overdueStatus, cacheTtl, null);
    }

    /** @param memoryPolicies reads the {@code maxmemory-policy} shown in the details; null shows none */
    public DelayQueuesHealthIndicator(PartitionedQueues store, Duration overdueThreshold, Status overdueStatus,
            Duration cacheTtl, @Nullable MemoryPolicies memoryPolicies) {
        this.memoryPolicies = memoryPolicies;
        this.store = store;
        this.overdueThreshold = overdueThreshold;
        this.overdueStatus = overdueStatus;
        this.cacheTtl = cacheTtl;
    }

    @Override
    public Health health() {
        Health cached = last;
        if (cached != null && System.nanoTime() - lastAt < cacheTtl.toNanos()) {
            return cached;
        }
        Health.Builder builder = new Health.Builder();
        try {
            doHealthCheck(builder);
        }
        catch (RuntimeException ex) {
            logger.warn("Delay queues health check failed: " + ex.getMessage());
            builder.down(ex);
        }
        Health checked = builder.build();
        last = checked;
        lastAt = System.nanoTime();
        return checked;
    }

    private void doHealthCheck(Health.Builder builder) {
        Map<String, Object> queues = new LinkedHashMap<>();
        Map<String, Long> overdue = new LinkedHashMap<>();
        for (QueueName name : RegisteredQueues.of(store)) {
            String queue = name.value();
            PartitionedStats partitioned = store.stats(name);
            QueueStats stats = partitioned.total();
            long lateness = stats.oldestLatenessMillis();
            Map<String, Object> detail = new LinkedHashMap<>();
            detail.put("delayed", stats.delayed());
            detail.put("ready", stats.ready());
            detail.put("running", stats.running());
            detail.put("dead", stats.dead());
            detail.put("consumers", stats.instances().size());
            detail.put("oldestOverdueMillis", lateness);
            detail.put("paused", stats.control().paused());
            if (partitioned.partitions().size() > 1) {
                // the partition that holds the queue back (its master down or hung, say) named at once
                Map<String, Long> byPartition = new LinkedHashMap<>();
                partitioned.partitions().forEach(p -> byPartition.put(p.name(), p.stats().oldestLatenessMillis()));
                detail.put("oldestOverdueMillisByPartition", byPartition);
            }
            queues.put(queue, detail);
            // a paused queue's due jobs wait on purpose: it is not stalled
            if (!stats.control().paused() && !stats.instances().isEmpty() && lateness > overdueThreshold.toMillis()) {
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
        if (memoryPolicies != null) {
            Map<String, String> policies = memoryPolicies.read();
            builder.withDetail("maxmemoryPolicy", policies);
            policies.forEach((address, policy) -> {
                String risk = MemoryPolicies.risk(policy);
                if (risk != null) {
                    builder.withDetail("maxmemoryPolicyWarning", "Redis at " + address + " has maxmemory-policy " + policy
                            + ": when it reaches maxmemory, " + risk + ". The delay queues need noeviction");
                }
            });
        }
    }
}
