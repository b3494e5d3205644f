package dev.delayjobs.autoconfigure;

import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.util.ClassUtils;

import dev.delayjobs.RateLimit;
import dev.delayjobs.core.DurationText;
import dev.delayjobs.core.JobArguments;
import dev.delayjobs.listener.QueueSettings;
import dev.delayjobs.queue.Partition;
import dev.delayjobs.queue.QueueName;
import dev.delayjobs.redis.ReplicaConfirmation;
import dev.delayjobs.timer.WatchdogSettings;

/**
 * Turns {@link DelayProperties} into the settings the queues run with, rejecting at startup any
 * value that cannot work, with the property named.
 */
final class ConfiguredSettings implements QueueSettings.Source {

    private final DelayProperties properties;
    private final QueueSettings defaults;
    private final List<Class<? extends Throwable>> notRetryableDefaults;
    private final Map<String, List<Class<? extends Throwable>>> notRetryableByQueue = new LinkedHashMap<>();

    ConfiguredSettings(DelayProperties properties) {
        this.properties = properties;
        DelayProperties.Consumer consumer = properties.getConsumer();
        DelayProperties.Backoff backoff = consumer.getBackoff();
        this.defaults = build("delay.consumer", consumer.getConcurrency(), consumer.getMaxAttempts(), backoff.getInitial(),
                backoff.getMultiplier(), backoff.getMax(), backoff.getJitter(), consumer.isAutoStartup(),
                consumer.getHandlerTimeout(), null, false, consumer.getPrefetch());
        properties.getQueues().keySet().forEach(this::forQueue);
        this.notRetryableDefaults = exceptionClasses("delay.consumer.not-retryable-exceptions",
                consumer.getNotRetryableExceptions());
        properties.getQueues().forEach((queue, o) -> {
            if (o.getNotRetryableExceptions() != null) {
                notRetryableByQueue.put(queue, exceptionClasses("delay.queues." + queue + ".not-retryable-exceptions",
                        o.getNotRetryableExceptions()));
            }
        });
        checkConfirmations();
        bridgedLists();
        partitions();
    }

    /**
     * The partition count of each queue that sets {@code delay.queues.<queue>.partitions}: 1 to
     * {@value Partition#MAX_COUNT}, not with compatibility mode, and no rate limit with
     * fewer permits than partitions (each partition lets its share start).
     */
    Map<QueueName, Integer> partitions() {
        Map<QueueName, Integer> partitions = new LinkedHashMap<>();
        properties.getQueues().forEach((queue, o) -> {
            Integer n = o.getPartitions();
            if (n == null) {
                return;
            }
            String name = "delay.queues." + queue + ".partitions";
            if (n < 1 || n > Partition.MAX_COUNT) {
                throw new InvalidConfigurationPropertyValueException(name, n,
                        "must be between 1 and " + Partition.MAX_COUNT);
            }
            if (n > 1 && o.getRedissonDelayedQueue() != null) {
                throw new InvalidConfigurationPropertyValueException(name, n, "a queue that bridges a Redisson "
                        + "RDelayedQueue (delay.queues." + queue + ".redisson-delayed-queue) has one partition: its "
                        + "elements arrive in one list");
            }
            RateLimit limit = forQueue(queue).rateLimit();
            if (limit != null && limit.permits() < n) {
                throw new InvalidConfigurationPropertyValueException("delay.queues." + queue + ".rate-limit", o.getRateLimit(),
                        "allows " + limit.permits() + " job(s) per window, fewer than the queue's " + n + " partitions, "
                                + "each of which lets its share start: allow at least " + n);
            }
            partitions.put(QueueName.of(queue), n);
        });
        return partitions;
    }

    @Override
    public QueueSettings forQueue(String queue) {
        DelayProperties.QueueOverrides o = properties.getQueues().get(queue);
        if (o == null) {
            return defaults;
        }
        String name = "delay.queues." + queue;
        try {
            JobArguments.queue(queue);
        }
        catch (IllegalArgumentException ex) {
            throw new InvalidConfigurationPropertyValueException(name, queue, ex.getMessage());
        }
        DelayProperties.BackoffOverrides b = o.getBackoff();
        QueueSettings.ExponentialBackoff d = defaults.backoff();
        return build(name, or(o.getConcurrency(), defaults.concurrency()), or(o.getMaxAttempts(), defaults.maxAttempts()),
                or(b.getInitial(), d.initial()), or(b.getMultiplier(), d.multiplier()), or(b.getMax(), d.max()),
                or(b.getJitter(), d.jitter()), or(o.getAutoStartup(), defaults.autoStartup()),
                or(o.getHandlerTimeout(), defaults.handlerTimeout()), rateLimit(name, o.getRateLimit()),
                o.isPausedOnStartup(), or(o.getPrefetch(), defaults.prefetch()));
    }

    /** The exception classes that send a job of {@code queue} to the dead set at its first failure. */
    List<Class<? extends Throwable>> notRetryableExceptions(String queue) {
        return notRetryableByQueue.getOrDefault(queue, notRetryableDefaults);
    }

    /** Loads the named classes, refusing a name that is no class here, or no Throwable, with the property named. */
    private static List<Class<? extends Throwable>> exceptionClasses(String property, List<String> names) {
        List<Class<? extends Throwable>> classes = new ArrayList<>();
        for (String name : names) {
            String trimmed = name == null ? "" : name.trim();
            Class<?> type;
            try {
                type = ClassUtils.forName(trimmed, ConfiguredSettings.class.getClassLoader());
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

    /** How many replicas must confirm a publish to {@code queue}, and for how long to wait. */
    ReplicaConfirmation replicaConfirmation(String queue) {
        DelayProperties.QueueOverrides o = properties.getQueues().get(queue);
        Integer perQueue = o == null ? null : o.getConfirmReplicas();
        int replicas = perQueue != null ? perQueue : properties.getPublisher().getConfirmReplicas();
        return replicas == 0 ? ReplicaConfirmation.NONE
                : new ReplicaConfirmation(replicas, properties.getPublisher().getConfirmTimeout());
    }

    /**
     * The longest replica wait of a publish to any queue ({@link ReplicaConfirmation#NONE} when no
     * queue waits): each resent copy of a confirmed publish waits too, so request memos live longer.
     */
    ReplicaConfirmation longestReplicaConfirmation() {
        DelayProperties.Publisher publisher = properties.getPublisher();
        boolean anyConfirms = publisher.getConfirmReplicas() > 0 || properties.getQueues().values().stream()
                .anyMatch(o -> o.getConfirmReplicas() != null && o.getConfirmReplicas() > 0);
        return anyConfirms ? new ReplicaConfirmation(1, publisher.getConfirmTimeout()) : ReplicaConfirmation.NONE;
    }

    /**
     * The target list of each queue that bridges a Redisson {@code RDelayedQueue}
     * ({@code delay.queues.<queue>.redisson-delayed-queue}), by queue.
     */
    Map<String, String> bridgedLists() {
        Map<String, String> lists = new LinkedHashMap<>();
        properties.getQueues().forEach((queue, o) -> {
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
                return;
            }
            if (list.isBlank() || list.length() > 512) {
                throw new InvalidConfigurationPropertyValueException(name + "redisson-delayed-queue", list,
                        "must be the name of the RDelayedQueue's target list (not blank, at most 512 characters)");
            }
            lists.put(queue, list);
        });
        return lists;
    }

    /** Checks the confirm-replicas settings, each named as written. */
    private void checkConfirmations() {
        DelayProperties.Publisher publisher = properties.getPublisher();
        if (publisher.getConfirmReplicas() < 0) {
            throw new InvalidConfigurationPropertyValueException("delay.publisher.confirm-replicas",
                    publisher.getConfirmReplicas(), "must be zero or positive");
        }
        if (publisher.getConfirmTimeout() == null || publisher.getConfirmTimeout().toMillis() < 1) {
            throw new InvalidConfigurationPropertyValueException("delay.publisher.confirm-timeout",
                    publisher.getConfirmTimeout(), "must be at least 1ms");
        }
        properties.getQueues().forEach((queue, o) -> {
            if (o.getConfirmReplicas() != null && o.getConfirmReplicas() < 0) {
                throw new InvalidConfigurationPropertyValueException("delay.queues." + queue + ".confirm-replicas",
                        o.getConfirmReplicas(), "must be zero or positive");
            }
        });
    }

    WatchdogSettings watchdog() {
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
        return new WatchdogSettings(properties.getSweepInterval(), properties.getHeartbeatInterval(),
                properties.getHeartbeatLease(), properties.getTransferBatchSize(), properties.getDeadRetention());
    }

    Duration shutdownTimeout() {
        Duration timeout = properties.getShutdownTimeout();
        if (timeout == null || timeout.isNegative()) {
            throw new InvalidConfigurationPropertyValueException("delay.shutdown-timeout", timeout, "must be zero or positive");
        }
        return timeout;
    }

    String keyPrefix() {
        String prefix = properties.getKeyPrefix();
        if (prefix == null || prefix.isBlank() || prefix.contains("{") || prefix.contains("}")) {
            throw new InvalidConfigurationPropertyValueException("delay.key-prefix", prefix,
                    "must not be blank nor contain '{' or '}' (the queue name is the hash tag)");
        }
        return prefix;
    }

    long maxPayloadBytes() {
        if (properties.getMaxPayloadSize() == null || properties.getMaxPayloadSize().toBytes() < 1) {
            throw new InvalidConfigurationPropertyValueException("delay.max-payload-size", properties.getMaxPayloadSize(),
                    "must be at least 1 byte");
        }
        return properties.getMaxPayloadSize().toBytes();
    }

    boolean strictPayloads() {
        return properties.getConsumer().isStrictPayloads();
    }

    String instanceId() {
        String configured = properties.getInstanceId();
        if (configured != null) {
            try {
                return JobArguments.id(configured);
            }
            catch (IllegalArgumentException ex) {
                throw new InvalidConfigurationPropertyValueException("delay.instance-id", configured, ex.getMessage());
            }
        }
        String host = System.getenv("HOSTNAME");
        if (host == null || host.isBlank()) {
            try {
                host = InetAddress.getLocalHost().getHostName();
            }
            catch (Exception ex) {
                host = "host";
            }
        }
        byte[] random = new byte[3];
        ThreadLocalRandom.current().nextBytes(random);
        return host.toLowerCase(Locale.ROOT) + "-" + ProcessHandle.current().pid() + "-" + HexFormat.of().formatHex(random);
    }

    private static RateLimit rateLimit(String name, String text) {
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

    private static QueueSettings build(String name, int concurrency, int maxAttempts, Duration initial, double multiplier,
            Duration max, double jitter, boolean autoStartup, Duration handlerTimeout, RateLimit rateLimit,
            boolean pausedOnStartup, Integer prefetch) {
        try {
            return new QueueSettings(concurrency, maxAttempts,
                    new QueueSettings.ExponentialBackoff(initial, multiplier, max, jitter), autoStartup, handlerTimeout,
                    rateLimit, pausedOnStartup, prefetch);
        }
        catch (QueueSettings.InvalidSettingException ex) {
            throw new InvalidConfigurationPropertyValueException(name + "." + ex.setting(), ex.value(), ex.reason());
        }
    }

    private static void positive(String name, Duration value) {
        if (value == null || value.isZero() || value.isNegative()) {
            throw new InvalidConfigurationPropertyValueException(name, value, "must be positive");
        }
    }

    private static <T> T or(T value, T fallback) {
        return value != null ? value : fallback;
    }

}
