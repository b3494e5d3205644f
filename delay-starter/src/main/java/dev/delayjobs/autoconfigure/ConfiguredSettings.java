package dev.delayjobs.autoconfigure;

import java.net.InetAddress;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

import dev.delayjobs.RateLimit;
import dev.delayjobs.listener.QueueSettings;
import dev.delayjobs.queue.QueueName;
import dev.delayjobs.redis.ReplicaConfirmation;
import dev.delayjobs.timer.WatchdogSettings;

/**
 * Turns {@link DelayProperties} into the settings the queues run with. Built once, when the
 * application's beans are: {@link PropertyChecks} first rejects any value that cannot work, with
 * the property named, and the consumer settings of each configured queue are built here, so that
 * a bad one fails then too.
 */
final class ConfiguredSettings implements QueueSettings.Source {

    private final DelayProperties properties;
    private final QueueSettings defaults;
    private final List<Class<? extends Throwable>> notRetryableDefaults;
    private final Map<String, List<Class<? extends Throwable>>> notRetryableByQueue = new LinkedHashMap<>();
    private final String instanceId;

    ConfiguredSettings(DelayProperties properties, ClassLoader classLoader) {
        PropertyChecks.check(properties, classLoader);
        this.properties = properties;
        DelayProperties.Consumer consumer = properties.getConsumer();
        DelayProperties.Backoff backoff = consumer.getBackoff();
        this.defaults = build("delay.consumer", consumer.getConcurrency(), consumer.getMaxAttempts(), backoff.getInitial(),
                backoff.getMultiplier(), backoff.getMax(), backoff.getJitter(), consumer.isAutoStartup(),
                consumer.getHandlerTimeout(), null, false, consumer.getPrefetch(), 0);
        properties.getQueues().keySet().forEach(this::forQueue);
        this.notRetryableDefaults = PropertyChecks.exceptionClasses("delay.consumer.not-retryable-exceptions",
                consumer.getNotRetryableExceptions());
        properties.getQueues().forEach((queue, o) -> {
            if (o.getNotRetryableExceptions() != null) {
                notRetryableByQueue.put(queue, PropertyChecks.exceptionClasses("delay.queues." + queue
                        + ".not-retryable-exceptions", o.getNotRetryableExceptions()));
            }
        });
        // once: the queue layouts and the watchdog must know this instance by the same id
        this.instanceId = properties.getInstanceId() != null ? properties.getInstanceId() : generatedInstanceId();
    }

    /** The partition count of each queue that sets {@code delay.queues.<queue>.partitions}. */
    Map<QueueName, Integer> partitions() {
        Map<QueueName, Integer> partitions = new LinkedHashMap<>();
        properties.getQueues().forEach((queue, o) -> {
            if (o.getPartitions() != null) {
                partitions.put(QueueName.of(queue), o.getPartitions());
            }
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
        DelayProperties.BackoffOverrides b = o.getBackoff();
        QueueSettings.ExponentialBackoff d = defaults.backoff();
        return build(name, or(o.getConcurrency(), defaults.concurrency()), or(o.getMaxAttempts(), defaults.maxAttempts()),
                or(b.getInitial(), d.initial()), or(b.getMultiplier(), d.multiplier()), or(b.getMax(), d.max()),
                or(b.getJitter(), d.jitter()), or(o.getAutoStartup(), defaults.autoStartup()),
                or(o.getHandlerTimeout(), defaults.handlerTimeout()), PropertyChecks.rateLimit(name, o.getRateLimit()),
                o.isPausedOnStartup(), or(o.getPrefetch(), defaults.prefetch()), PropertyChecks.groupConcurrency(name,
                        o.getGroupConcurrency()));
    }

    /** The exception classes that send a job of {@code queue} to the dead set at its first failure. */
    List<Class<? extends Throwable>> notRetryableExceptions(String queue) {
        return notRetryableByQueue.getOrDefault(queue, notRetryableDefaults);
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
            if (o.getRedissonDelayedQueue() != null) {
                lists.put(queue, o.getRedissonDelayedQueue());
            }
        });
        return lists;
    }

    WatchdogSettings watchdog() {
        return new WatchdogSettings(properties.getSweepInterval(), properties.getHeartbeatInterval(),
                properties.getHeartbeatLease(), properties.getTransferBatchSize(), properties.getDeadRetention());
    }

    Duration shutdownTimeout() {
        return properties.getShutdownTimeout();
    }

    String keyPrefix() {
        return properties.getKeyPrefix();
    }

    long maxPayloadBytes() {
        return properties.getMaxPayloadSize().toBytes();
    }

    boolean strictPayloads() {
        return properties.getConsumer().isStrictPayloads();
    }

    /** {@code delay.instance-id}, else one made of the host name, the process id and a random suffix. */
    String instanceId() {
        return instanceId;
    }

    /** The health indicator's settings, checked. */
    DelayProperties.Health health() {
        return properties.getHealth();
    }

    /** How long a gauge's Redis read answers, checked. */
    Duration gaugeCacheTtl() {
        return properties.getMetrics().getGaugeCacheTtl();
    }

    /** The dashboard's settings, checked. */
    DelayProperties.Dashboard dashboard() {
        return properties.getDashboard();
    }

    private static String generatedInstanceId() {
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

    private static QueueSettings build(String name, int concurrency, int maxAttempts, Duration initial, double multiplier,
            Duration max, double jitter, boolean autoStartup, Duration handlerTimeout, RateLimit rateLimit,
            boolean pausedOnStartup, Integer prefetch, int groupConcurrency) {
        try {
            return new QueueSettings(concurrency, maxAttempts,
                    new QueueSettings.ExponentialBackoff(initial, multiplier, max, jitter), autoStartup, handlerTimeout,
                    rateLimit, pausedOnStartup, prefetch, groupConcurrency);
        }
        catch (QueueSettings.InvalidSettingException ex) {
            throw new InvalidConfigurationPropertyValueException(name + "." + ex.setting(), ex.value(), ex.reason());
        }
    }

    private static <T> T or(T value, T fallback) {
        return value != null ? value : fallback;
    }
}
