package dev.delayjobs.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * Configuration of the delay queues.
 */
@ConfigurationProperties("delay")
public class DelayProperties {

    /**
     * Whether to auto-configure the delay queues.
     */
    private boolean enabled = true;

    /**
     * Prefix of every Redis key the delay queues use. Applications that share a Redis and must not
     * see each other's queues use different prefixes.
     */
    private String keyPrefix = "delay";

    /**
     * Identity of this application instance among the consumers of a queue. Generated from the host
     * name, the process id and a random suffix when not set; must be unique among live instances.
     */
    private String instanceId;

    /**
     * Largest payload accepted by a publish, as JSON. Consumers read records up to this size
     * plus 8KB (the record header and headers); a longer record, from a publisher with a larger
     * setting or written by hand, goes to the dead set unread.
     */
    private DataSize maxPayloadSize = DataSize.ofKilobytes(64);

    /**
     * Period of the sweep that transfers due jobs whatever pub/sub says and recovers the jobs of
     * stopped instances. A lost wake message delays a job by at most this much.
     */
    private Duration sweepInterval = Duration.ofSeconds(1);

    /**
     * Period at which a consuming instance renews its lease on each of its queues.
     */
    private Duration heartbeatInterval = Duration.ofSeconds(5);

    /**
     * How long the jobs of an instance that stopped heartbeating (crashed, frozen, cut off) stay
     * held before other instances send them back to ready. Must exceed the heartbeat interval.
     */
    private Duration heartbeatLease = Duration.ofSeconds(20);

    /**
     * Most due jobs moved from delayed to ready by one Redis script call; bounds how long one call
     * holds Redis when a large batch becomes due at once.
     */
    private int transferBatchSize = 1000;

    /**
     * How long shutdown waits for running handlers before interrupting them and handing their jobs
     * back to the queue.
     */
    private Duration shutdownTimeout = Duration.ofSeconds(30);

    /**
     * How long dead jobs are kept for inspection and requeueing before they are deleted.
     */
    private Duration deadRetention = Duration.ofDays(7);

    /**
     * Defaults for every @DelayedHandler.
     */
    private final Consumer consumer = new Consumer();

    /**
     * Publishing.
     */
    private final Publisher publisher = new Publisher();

    /**
     * Micrometer observations (metrics and traces) of publishing and handling.
     */
    private final Observation observation = new Observation();

    /**
     * The delayQueues health indicator.
     */
    private final Health health = new Health();

    /**
     * Micrometer metrics of the queues.
     */
    private final Metrics metrics = new Metrics();

    /**
     * The web dashboard of the queues.
     */
    private final Dashboard dashboard = new Dashboard();

    /**
     * Per-queue settings, keyed by queue name; each overrides the delay.consumer defaults for its
     * queue.
     */
    private Map<String, QueueOverrides> queues = new LinkedHashMap<>();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getKeyPrefix() {
        return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    public String getInstanceId() {
        return instanceId;
    }

    public void setInstanceId(String instanceId) {
        this.instanceId = instanceId;
    }

    public DataSize getMaxPayloadSize() {
        return maxPayloadSize;
    }

    public void setMaxPayloadSize(DataSize maxPayloadSize) {
        this.maxPayloadSize = maxPayloadSize;
    }

    public Duration getSweepInterval() {
        return sweepInterval;
    }

    public void setSweepInterval(Duration sweepInterval) {
        this.sweepInterval = sweepInterval;
    }

    public Duration getHeartbeatInterval() {
        return heartbeatInterval;
    }

    public void setHeartbeatInterval(Duration heartbeatInterval) {
        this.heartbeatInterval = heartbeatInterval;
    }

    public Duration getHeartbeatLease() {
        return heartbeatLease;
    }

    public void setHeartbeatLease(Duration heartbeatLease) {
        this.heartbeatLease = heartbeatLease;
    }

    public int getTransferBatchSize() {
        return transferBatchSize;
    }

    public void setTransferBatchSize(int transferBatchSize) {
        this.transferBatchSize = transferBatchSize;
    }

    public Duration getShutdownTimeout() {
        return shutdownTimeout;
    }

    public void setShutdownTimeout(Duration shutdownTimeout) {
        this.shutdownTimeout = shutdownTimeout;
    }

    public Duration getDeadRetention() {
        return deadRetention;
    }

    public void setDeadRetention(Duration deadRetention) {
        this.deadRetention = deadRetention;
    }

    public Consumer getConsumer() {
        return consumer;
    }

    public Health getHealth() {
        return health;
    }

    public Metrics getMetrics() {
        return metrics;
    }

    public Map<String, QueueOverrides> getQueues() {
        return queues;
    }

    public void setQueues(Map<String, QueueOverrides> queues) {
        this.queues = queues;
    }

    /** The delayQueues health indicator. */
    public Publisher getPublisher() {
        return publisher;
    }

    public Observation getObservation() {
        return observation;
    }

    public Dashboard getDashboard() {
        return dashboard;
    }

    public static class Dashboard {

        /**
         * Whether the application serves the dashboard (Spring MVC applications with the
         * delayqueues endpoint exposed over HTTP). It reads and writes through that endpoint, so
         * the endpoint's access and the application's security apply to it.
         */
        private boolean enabled;

        /**
         * Path of the dashboard page, below the servlet context path.
         */
        private String path = "/delay-jobs";

        /**
         * How often the page reads the endpoint again.
         */
        private Duration refreshInterval = Duration.ofSeconds(2);

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getPath() {
            return path;
        }

        public void setPath(String path) {
            this.path = path;
        }

        public Duration getRefreshInterval() {
            return refreshInterval;
        }

        public void setRefreshInterval(Duration refreshInterval) {
            this.refreshInterval = refreshInterval;
        }
    }

    public static class Observation {

        /**
         * Whether publishing and handling are Micrometer observations (delay.publish,
         * delay.handler) when an ObservationRegistry bean exists. The trace context is then stored
         * with each job, and its handler continues the publisher's trace. Off by default, like
         * spring-kafka's observation.
         */
        private boolean enabled;

        /**
         * Whether the observations also carry the key names of the previous release beside the
         * current OpenTelemetry messaging ones: messaging.operation=publish|process beside
         * messaging.operation.type and messaging.operation.name. Span names are the current ones
         * either way. For one release, to move dashboards and trace queries; then removed.
         */
        private boolean legacyNames;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public boolean isLegacyNames() {
            return legacyNames;
        }

        public void setLegacyNames(boolean legacyNames) {
            this.legacyNames = legacyNames;
        }
    }

    public static class Publisher {

        /**
         * Whether a publish made inside a Spring-managed transaction waits for its commit by
         * default (and is dropped on rollback). The id is returned at once; the delay counts from
         * the commit. A request chooses for itself with PublishRequest.afterCommit() or
         * immediately(). Outside a transaction jobs are stored at once either way.
         */
        private boolean afterCommit;

        /**
         * Replicas that must confirm each publish before it returns (WAIT after the publish
         * script); a publish they do not confirm within confirm-timeout throws. 0 (the default)
         * waits for none: Redis replicates asynchronously, so a failover can lose jobs the master
         * had acknowledged. Per queue: delay.queues.<queue>.confirm-replicas.
         */
        private int confirmReplicas;

        /**
         * Longest wait for the replicas of confirm-replicas.
         */
        private Duration confirmTimeout = Duration.ofSeconds(1);

        public int getConfirmReplicas() {
            return confirmReplicas;
        }

        public void setConfirmReplicas(int confirmReplicas) {
            this.confirmReplicas = confirmReplicas;
        }

        public Duration getConfirmTimeout() {
            return confirmTimeout;
        }

        public void setConfirmTimeout(Duration confirmTimeout) {
            this.confirmTimeout = confirmTimeout;
        }


        public boolean isAfterCommit() {
            return afterCommit;
        }

        public void setAfterCommit(boolean afterCommit) {
            this.afterCommit = afterCommit;
        }
    }

    public static class Health {

        /**
         * How long a due job may wait for a consumer, while consumers exist, before the queue counts
         * as stalled.
         */
        private Duration overdueThreshold = Duration.ofSeconds(60);

        /**
         * Health status reported while a queue is stalled (for example DOWN, or OUT_OF_SERVICE, or a
         * custom status mapped in management.endpoint.health.status.order).
         */
        private String overdueStatus = "DOWN";

        /**
         * How long one health check's result answers before Redis is read again (one call per
         * queue). Zero reads every time.
         */
        private Duration cacheTtl = Duration.ofSeconds(2);

        public Duration getCacheTtl() {
            return cacheTtl;
        }

        public void setCacheTtl(Duration cacheTtl) {
            this.cacheTtl = cacheTtl;
        }

        public Duration getOverdueThreshold() {
            return overdueThreshold;
        }

        public void setOverdueThreshold(Duration overdueThreshold) {
            this.overdueThreshold = overdueThreshold;
        }

        public String getOverdueStatus() {
            return overdueStatus;
        }

        public void setOverdueStatus(String overdueStatus) {
            this.overdueStatus = overdueStatus;
        }
    }

    /** Micrometer metrics of the queues. */
    public static class Metrics {

        /**
         * How long the queue counts behind the delay.queue.jobs gauges are reused before Redis is
         * asked again; bounds the Redis calls a scrape makes to one per queue.
         */
        private Duration gaugeCacheTtl = Duration.ofSeconds(2);

        public Duration getGaugeCacheTtl() {
            return gaugeCacheTtl;
        }

        public void setGaugeCacheTtl(Duration gaugeCacheTtl) {
            this.gaugeCacheTtl = gaugeCacheTtl;
        }
    }

    /** Defaults for every handler. */
    public static class Consumer {

        /**
         * Jobs of one queue handled at once in this instance.
         */
        private int concurrency = 1;

        /**
         * Jobs of one queue claimed ahead of the workers (0 to 1000): they wait in this instance's
         * buffer (state PREFETCHED, no attempt counted) so that a worker that finishes starts the
         * next job without a round trip to Redis. They can no longer be cancelled, and another
         * instance does not get them while they wait; 0 claims only for free workers. Unset means
         * about what the workers start in 50 ms at their recent pace (none for handlers slower than 20
         * jobs a second), up to 1000.
         */
        private Integer prefetch;

        /**
         * Deliveries a job gets before it goes to the dead set (1 means no retry).
         */
        private int maxAttempts = 3;

        /**
         * Whether handlers start consuming when the application context starts.
         */
        private boolean autoStartup = true;

        /**
         * Longest time one handler call may run. When it is exceeded, the handler thread is
         * interrupted, its worker is freed, and the attempt counts as failed (retried, or dead after
         * the last attempt). Unset means no limit.
         */
        private Duration handlerTimeout;

        /**
         * Whether a record payload must carry every component that is not an Optional or
         * annotated @Nullable. A job whose payload lacks one (or has it null) goes to the dead set
         * with the field named, instead of running its handler with null. Unknown extra fields are
         * allowed either way. False reads payloads as Jackson does (missing fields become null or 0).
         */
        private boolean strictPayloads = true;

        /**
         * Exception classes, by fully qualified name, that send a job to the dead set at its first
         * failure, without retry: when the handler throws one of them (a subclass too), or an
         * exception caused by one. A NonRetryableJobException always does.
         */
        private List<String> notRetryableExceptions = new ArrayList<>();

        /**
         * Delays between attempts of a failed job.
         */
        private final Backoff backoff = new Backoff();

        public List<String> getNotRetryableExceptions() {
            return notRetryableExceptions;
        }

        public void setNotRetryableExceptions(List<String> notRetryableExceptions) {
            this.notRetryableExceptions = notRetryableExceptions;
        }

        public int getConcurrency() {
            return concurrency;
        }

        public void setConcurrency(int concurrency) {
            this.concurrency = concurrency;
        }

        public Integer getPrefetch() {
            return prefetch;
        }

        public void setPrefetch(Integer prefetch) {
            this.prefetch = prefetch;
        }

        public int getMaxAttempts() {
            return maxAttempts;
        }

        public void setMaxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
        }

        public boolean isAutoStartup() {
            return autoStartup;
        }

        public void setAutoStartup(boolean autoStartup) {
            this.autoStartup = autoStartup;
        }

        public Duration getHandlerTimeout() {
            return handlerTimeout;
        }

        public boolean isStrictPayloads() {
            return strictPayloads;
        }

        public void setStrictPayloads(boolean strictPayloads) {
            this.strictPayloads = strictPayloads;
        }

        public void setHandlerTimeout(Duration handlerTimeout) {
            this.handlerTimeout = handlerTimeout;
        }

        public Backoff getBackoff() {
            return backoff;
        }
    }

    /** Retry delays: initial * multiplier^(attempt - 1), capped at max, spread by +/- jitter. */
    public static class Backoff {

        /**
         * Delay before the first retry.
         */
        private Duration initial = Duration.ofSeconds(1);

        /**
         * Factor applied to the delay after each failed attempt (at least 1.0).
         */
        private double multiplier = 2.0;

        /**
         * Longest delay between two attempts.
         */
        private Duration max = Duration.ofMinutes(10);

        /**
         * Random spread of each delay, as a fraction of it (0.0 to 1.0), so that jobs that failed
         * together do not retry together.
         */
        private double jitter = 0.1;

        public Duration getInitial() {
            return initial;
        }

        public void setInitial(Duration initial) {
            this.initial = initial;
        }

        public double getMultiplier() {
            return multiplier;
        }

        public void setMultiplier(double multiplier) {
            this.multiplier = multiplier;
        }

        public Duration getMax() {
            return max;
        }

        public void setMax(Duration max) {
            this.max = max;
        }

        public double getJitter() {
            return jitter;
        }

        public void setJitter(double jitter) {
            this.jitter = jitter;
        }
    }

    /** Settings of one queue; each one left unset takes the delay.consumer default. */
    public static class QueueOverrides {

        /**
         * Jobs of this queue handled at once in this instance.
         */
        private Integer concurrency;

        /**
         * Jobs of this queue claimed ahead of the workers, waiting in this instance's buffer (0 to
         * 1000; 0 claims only for free workers).
         */
        private Integer prefetch;

        /**
         * Deliveries a job of this queue gets before it goes to the dead set.
         */
        private Integer maxAttempts;

        /**
         * Whether the handler of this queue starts with the application context.
         */
        private Boolean autoStartup;

        /**
         * Longest time one handler call of this queue may run before it is interrupted and counted
         * as a failed attempt.
         */
        private Duration handlerTimeout;

        /**
         * Most jobs of this queue that start per window, all instances together, written
         * permits/window: for example 100/1s. Jobs over it wait in ready. A rate limit set at
         * runtime (endpoint, dashboard or DelayQueueControl) replaces it until cleared.
         */
        private String rateLimit;

        /**
         * Most jobs of one group of this queue held at once, all instances together, RUNNING or
         * waiting in a consumer's prefetch buffer: 1 runs the jobs of a group one at a time. A
         * group at its limit is passed over by claims until one of its jobs is acked, retried,
         * buried or recovered. Unset: no limit. Jobs without a group are not limited by it.
         */
        private Integer groupConcurrency;

        /**
         * Whether this instance pauses the queue when its handler starts, if the queue was never
         * paused nor resumed before; it is then consumed once resumed.
         */
        private boolean pausedOnStartup;

        /**
         * Partitions this queue's jobs are spread over, 1 to 128: each has its own hash tag, placed
         * on another master of a Redis Cluster where the slots allow, and its own timer and claimer.
         * Every application that publishes with this setting or consumes the queue must use the same
         * count; a change is refused at startup while jobs or consumers remain under the old one.
         * Default 1.
         */
        private Integer partitions;

        /**
         * Replicas that must confirm each publish to this queue before it returns; overrides
         * delay.publisher.confirm-replicas.
         */
        private Integer confirmReplicas;

        /**
         * Name of the target list of an existing Redisson RDelayedQueue that this queue bridges
         * (compatibility mode): what its timer moves to the list goes to this queue's handler, and
         * publishes to this queue are offered to it. Unset: a native queue.
         */
        private String redissonDelayedQueue;

        /**
         * Codec of the bridged RDelayedQueue's elements: "string" (StringCodec holding JSON text),
         * "json" (Redisson's JsonJacksonCodec, needs Jackson 2), or the name of a Codec bean.
         * Unset: the RedissonClient's codec. A binary codec needs redisson-allowed-classes.
         */
        private String redissonCodec;

        /**
         * Classes a binary codec of the bridged RDelayedQueue (Kryo5Codec, SerializationCodec) may
         * build when reading an element: class names, or for SerializationCodec also packages as
         * "com.acme.orders.*". Boxed primitives, String, the common collections, UUID, BigDecimal,
         * BigInteger and the java.time value types are always allowed.
         */
        private List<String> redissonAllowedClasses = new ArrayList<>();

        /**
         * Whether publishes to a bridged queue are offered to its RDelayedQueue, so that consumers
         * still calling take() get them (true), or stored as native jobs, with ids, keys, cancel,
         * find and reschedule (false: the last step of a migration, while the starter still moves
         * what old producers offer). Default true.
         */
        private Boolean redissonPublish;

        /**
         * Exception classes, by fully qualified name, that send a job of this queue to the dead set
         * at its first failure (the failure, or one of its causes, is an instance of one); replaces
         * delay.consumer.not-retryable-exceptions for this queue.
         */
        private List<String> notRetryableExceptions;

        /**
         * Retry delays of this queue.
         */
        private final BackoffOverrides backoff = new BackoffOverrides();

        public List<String> getNotRetryableExceptions() {
            return notRetryableExceptions;
        }

        public void setNotRetryableExceptions(List<String> notRetryableExceptions) {
            this.notRetryableExceptions = notRetryableExceptions;
        }

        public String getRedissonDelayedQueue() {
            return redissonDelayedQueue;
        }

        public void setRedissonDelayedQueue(String redissonDelayedQueue) {
            this.redissonDelayedQueue = redissonDelayedQueue;
        }

        public String getRedissonCodec() {
            return redissonCodec;
        }

        public void setRedissonCodec(String redissonCodec) {
            this.redissonCodec = redissonCodec;
        }

        public Integer getPartitions() {
            return partitions;
        }

        public void setPartitions(Integer partitions) {
            this.partitions = partitions;
        }

        public Boolean getRedissonPublish() {
            return redissonPublish;
        }

        public void setRedissonPublish(Boolean redissonPublish) {
            this.redissonPublish = redissonPublish;
        }

        public List<String> getRedissonAllowedClasses() {
            return redissonAllowedClasses;
        }

        public void setRedissonAllowedClasses(List<String> redissonAllowedClasses) {
            this.redissonAllowedClasses = redissonAllowedClasses;
        }

        public Integer getConcurrency() {
            return concurrency;
        }

        public void setConcurrency(Integer concurrency) {
            this.concurrency = concurrency;
        }

        public Integer getPrefetch() {
            return prefetch;
        }

        public void setPrefetch(Integer prefetch) {
            this.prefetch = prefetch;
        }

        public Integer getMaxAttempts() {
            return maxAttempts;
        }

        public void setMaxAttempts(Integer maxAttempts) {
            this.maxAttempts = maxAttempts;
        }

        public Boolean getAutoStartup() {
            return autoStartup;
        }

        public void setAutoStartup(Boolean autoStartup) {
            this.autoStartup = autoStartup;
        }

        public Duration getHandlerTimeout() {
            return handlerTimeout;
        }

        public void setHandlerTimeout(Duration handlerTimeout) {
            this.handlerTimeout = handlerTimeout;
        }

        public Integer getGroupConcurrency() {
            return groupConcurrency;
        }

        public void setGroupConcurrency(Integer groupConcurrency) {
            this.groupConcurrency = groupConcurrency;
        }

        public String getRateLimit() {
            return rateLimit;
        }

        public void setRateLimit(String rateLimit) {
            this.rateLimit = rateLimit;
        }

        public Integer getConfirmReplicas() {
            return confirmReplicas;
        }

        public void setConfirmReplicas(Integer confirmReplicas) {
            this.confirmReplicas = confirmReplicas;
        }

        public boolean isPausedOnStartup() {
            return pausedOnStartup;
        }

        public void setPausedOnStartup(boolean pausedOnStartup) {
            this.pausedOnStartup = pausedOnStartup;
        }

        public BackoffOverrides getBackoff() {
            return backoff;
        }
    }

    /** Retry delays of one queue; each one left unset takes the delay.consumer.backoff default. */
    public static class BackoffOverrides {

        /**
         * Delay before the first retry.
         */
        private Duration initial;

        /**
         * Factor applied to the delay after each failed attempt.
         */
        private Double multiplier;

        /**
         * Longest delay between two attempts.
         */
        private Duration max;

        /**
         * Random spread of each delay, as a fraction of it.
         */
        private Double jitter;

        public Duration getInitial() {
            return initial;
        }

        public void setInitial(Duration initial) {
            this.initial = initial;
        }

        public Double getMultiplier() {
            return multiplier;
        }

        public void setMultiplier(Double multiplier) {
            this.multiplier = multiplier;
        }

        public Duration getMax() {
            return max;
        }

        public void setMax(Duration max) {
            this.max = max;
        }

        public Double getJitter() {
            return jitter;
        }

        public void setJitter(Double jitter) {
            this.jitter = jitter;
        }
    }
}
