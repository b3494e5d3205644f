package dev.delayjobs.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.util.ClassUtils;

import dev.delayjobs.RateLimit;
import dev.delayjobs.core.DurationText;
import dev.delayjobs.core.JobArguments;
import dev.delayjobs.queue.Partition;
import dev.delayjobs.queue.QueueName;

/**
 * Every rule on the values of the {@code delay.*} properties, run once, with no Redis, when
 * {@link ConfiguredSettings} is built: a value that cannot work fails the startup with an
 * {@link InvalidConfigurationPropertyValueException} naming the property as written (Spring Boot's
 * failure analyzer reports it). The consumer settings of each queue are checked by
 * {@code QueueSettings} as {@link ConfiguredSettings} builds them, and the bridged queues' codecs
 * (they name beans and read the client's codec) by the bridge's auto-configuration.
 */
final class PropertyChecks {

    /** Spring Boot Actuator's class that finds where the endpoint is mapped, which the dashboard needs. */
    static final String ACTUATOR_WEB_ENDPOINTS = "org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints";

    private PropertyChecks() {
    }

    /**
     * Runs every rule but those on a queue's consumer settings; throws at the first value that
     * breaks one. {@code classLoader} is the application's, where the dashboard looks for actuator.
     */
    static void check(DelayProperties properties, ClassLoader classLoader) {
        keyPrefix(properties.getKeyPrefix());
        if (properties.getMaxPayloadSize() == null || properties.getMaxPayloadSize().toBytes() < 1) {
            throw new InvalidConfigurationPropertyValueException("delay.max-payload-size", properties.getMaxPayloadSize(),
                    "must be at least 1 byte");
        }
        if (properties.getInstanceId() != null) {
            try {
                JobArguments.id(properties.getInstanceId());
            }
            catch (IllegalArgumentException ex) {
                throw new InvalidConfigurationPropertyValueException("delay.instance-id", properties.getInstanceId(),
                        ex.getMessage());
            }
        }
        timers(properties);
        zeroOrPositive("delay.shutdown-timeout", properties.getShutdownTimeout());
        confirmations(properties);
        properties.getQueues().forEach(PropertyChecks::queue);
        health(properties.getHealth());
        zeroOrPositive("delay.metrics.gauge-cache-ttl", properties.getMetrics().getGaugeCacheTtl());
        dashboard(properties.getDashboard(), classLoader);
    }

    private static void keyPrefix(String prefix) {
        if (prefix == null || prefix.isBlank() || prefix.contains("{") || prefix.contains("}")) {
            throw new InvalidConfigurationPropertyValueException("delay.key-prefix", prefix,
                    "must not be blank nor contain '{' or '}' (the queue name is the hash tag)");
        }
    }

    private static void timers(DelayProperties properties) {
        positive("delay.sweep-interval", properties.getSweepInterval());
        positive("delay.heartbeat-interval", properties.getHeartbeatInterval());
        positive("delay.heartbeat-lease", properties.getHeartbeatLease());
        positive("delay.dead-retention", properties.getDeadRetention());
        if (properties.getHeartbeatLease().compareTo(properties.getHeartbeatInterval()) <= 0) {
            throw new InvalidConfigurationPropertyValueException("delay.heartbeat-lease", properties.getHeartbeatLease(),
                    "must be longer than delay.heartbeat-interval (" + DurationText.of(properties.getHeartbeatInterval())
                            + "), or live instances lose their jobs to others");
        }
        if (properties.getTransferBatchSize() < 1 || properties.getTransferBatchSize() > 10_000) {
            throw new InvalidConfigurationPropertyValueException("delay.transfer-batch-size",
                    properties.getTransferBatchSize(), "must be between 1 and 10000");
        }
    }

    private static void confirmations(DelayProperties properties) {
        DelayProperties.Publisher publisher = properties.getPublisher();
        if (publisher.getConfirmReplicas() < 0) {
            throw new InvalidConfigurationPropertyValueException("delay.publisher.confirm-replicas",
                    publisher.getConfirmReplicas(), "must be zero or positive");
        }
        if (publisher.getConfirmTimeout() == null || publisher.getConfirmTimeout().toMillis() < 1) {
            throw new InvalidConfigurationPropertyValueException("delay.publisher.confirm-timeout",
                    publisher.getConfirmTimeout(), "must be at least 1ms");
        }
    }

    /**
     * The settings of {@code delay.queues.<queue>} that are no consumer setting: its name, confirm
     * replicas, rate limit, partition count and compatibility mode.
     */
    private static void queue(String queue, DelayProperties.QueueOverrides o) {
        String name = "delay.queues." + queue;
        try {
            QueueName.of(queue);
        }
        catch (IllegalArgumentException ex) {
            throw new InvalidConfigurationPropertyValueException(name, queue, ex.getMessage());
        }
        if (o.getConfirmReplicas() != null && o.getConfirmReplicas() < 0) {
            throw new InvalidConfigurationPropertyValueException(name + ".confirm-replicas", o.getConfirmReplicas(),
                    "must be zero or positive");
        }
        RateLimit limit = rateLimit(name, o.getRateLimit());
        bridge(queue, o);
        Integer n = o.getPartitions();
        if (n == null) {
            return;
        }
        if (n < 1 || n > Partition.MAX_COUNT) {
            throw new InvalidConfigurationPropertyValueException(name + ".partitions", n,
                    "must be between 1 and " + Partition.MAX_COUNT);
        }
        if (n > 1 && o.getRedissonDelayedQueue() != null) {
            throw new InvalidConfigurationPropertyValueException(name + ".partitions", n, "a queue that bridges a Redisson "
                    + "RDelayedQueue (" + name + ".redisson-delayed-queue) has one partition: its elements arrive in one list");
        }
        if (limit != null && limit.permits() < n) {
            throw new InvalidConfigurationPropertyValueException(name + ".rate-limit", o.getRateLimit(),
                    "allows " + limit.permits() + " job(s) per window, fewer than the queue's " + n + " partitions, "
                            + "each of which lets its share start: allow at least " + n);
        }
    }

    /** The compatibility-mode settings of a queue: a target list, and the others only with one. */
    private static void bridge(String queue, DelayProperties.QueueOverrides o) {
        String name = "delay.queues." + queue + ".";
        String list = o.getRedissonDelayedQueue();
        if (list == null) {
            Map<String, Object> bridgeOnly = new LinkedHashMap<>();
            bridgeOnly.put("redisson-codec", o.getRedissonCodec());
            bridgeOnly.put("redisson-allowed-classes", o.getRedissonAllowedClasses().isEmpty() ? null
                    : o.getRedissonAllowedClasses());
            bridgeOnly.put("redisson-publish", o.getRedissonPublish());
            bridgeOnly.forEach((property, value) -> {
                if (value != null) {
                    throw new InvalidConfigurationPropertyValueException(name + property, value,
                            "applies only to a queue that bridges a Redisson RDelayedQueue: set " + name
                                    + "redisson-delayed-queue to the name of its target list");
                }
            });
        }
        else if (list.isBlank() || list.length() > 512) {
            throw new InvalidConfigurationPropertyValueException(name + "redisson-delayed-queue", list,
                    "must be the name of the RDelayedQueue's target list (not blank, at most 512 characters)");
        }
    }

    private static void health(DelayProperties.Health health) {
        zeroOrPositive("delay.health.overdue-threshold", health.getOverdueThreshold());
        if (health.getOverdueStatus() == null || health.getOverdueStatus().isBlank()) {
            throw new InvalidConfigurationPropertyValueException("delay.health.overdue-status",
                    health.getOverdueStatus(), "must name a health status, such as DOWN");
        }
        zeroOrPositive("delay.health.cache-ttl", health.getCacheTtl());
    }

    private static void dashboard(DelayProperties.Dashboard dashboard, ClassLoader classLoader) {
        String path = dashboard.getPath();
        if (path == null || !path.matches("(/[A-Za-z0-9._~-]+)+")) {
            throw new InvalidConfigurationPropertyValueException("delay.dashboard.path", path,
                    "must start with '/' and hold path segments of letters, digits, '.', '_', '~' or '-', "
                            + "with no trailing '/', such as /delay-jobs");
        }
        if (dashboard.getRefreshInterval() == null || dashboard.getRefreshInterval().toMillis() < 500) {
            throw new InvalidConfigurationPropertyValueException("delay.dashboard.refresh-interval",
                    dashboard.getRefreshInterval(), "must be at least 500ms");
        }
        if (dashboard.isEnabled() && !ClassUtils.isPresent(ACTUATOR_WEB_ENDPOINTS, classLoader)) {
            throw new InvalidConfigurationPropertyValueException("delay.dashboard.enabled", true,
                    "the dashboard reads and writes through the delayqueues actuator endpoint: add "
                            + "spring-boot-starter-actuator, or set delay.dashboard.enabled=false");
        }
    }

    /** The limit {@code <name>.group-concurrency} sets, 0 for none (unset). */
    static int groupConcurrency(String name, Integer value) {
        if (value == null) {
            return 0;
        }
        if (value < 1) {
            throw new InvalidConfigurationPropertyValueException(name + ".group-concurrency", value,
                    "must be at least 1 (leave it unset for no limit per group)");
        }
        return value;
    }

    /** The rate limit {@code <name>.rate-limit} sets, or null for none. */
    static RateLimit rateLimit(String name, String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        try {
            return RateLimit.parse(text.trim());
        }
        catch (IllegalArgumentException ex) {
            throw new InvalidConfigurationPropertyValueException(name + ".rate-limit", text, ex.getMessage());
        }
    }

    /** Loads the named classes, refusing a name that is no class here, or no Throwable, with the property named. */
    static List<Class<? extends Throwable>> exceptionClasses(String property, List<String> names) {
        List<Class<? extends Throwable>> classes = new ArrayList<>();
        for (String name : names) {
            String trimmed = name == null ? "" : name.trim();
            Class<?> type;
            try {
                type = ClassUtils.forName(trimmed, PropertyChecks.class.getClassLoader());
            }
            catch (ClassNotFoundException | LinkageError | IllegalArgumentException ex) {
                throw new InvalidConfigurationPropertyValueException(property, name,
                        "'" + trimmed + "' is not a class on the application's class path");
            }
            if (!Throwable.class.isAssignableFrom(type)) {
                throw new InvalidConfigurationPropertyValueException(property, name,
                        type.getName() + " is not an exception (a Throwable)");
            }
            classes.add(type.asSubclass(Throwable.class));
        }
        return List.copyOf(classes);
    }

    private static void positive(String name, Duration value) {
        if (value == null || value.isZero() || value.isNegative()) {
            throw new InvalidConfigurationPropertyValueException(name, value, "must be positive");
        }
    }

    private static void zeroOrPositive(String name, Duration value) {
        if (value == null || value.isNegative()) {
            throw new InvalidConfigurationPropertyValueException(name, value, "must be zero or positive");
        }
    }
}
