package dev.delayjobs.autoconfigure;

import io.micrometer.observation.ObservationRegistry;
import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.diagnostics.FailureAnalyzedException;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import dev.delayjobs.DelayContainerCustomizer;
import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayQueueControl;
import dev.delayjobs.JobFailurePolicy;
import dev.delayjobs.PayloadUpcaster;
import dev.delayjobs.bridge.BridgedQueues;
import dev.delayjobs.bridge.BridgingDelayPublisher;
import dev.delayjobs.control.RedisDelayQueueControl;
import dev.delayjobs.core.DelayQueueObserver;
import dev.delayjobs.core.JobEvents;
import dev.delayjobs.core.JobTracing;
import dev.delayjobs.core.PayloadCodec;
import dev.delayjobs.core.PublishDeferral;
import dev.delayjobs.core.RedisDelayPublisher;
import dev.delayjobs.listener.ConfiguredFailurePolicy;
import dev.delayjobs.listener.DelayedHandlerAnnotationBeanPostProcessor;
import dev.delayjobs.listener.ListenerContainerRegistry;
import dev.delayjobs.listener.QueueSettings;
import dev.delayjobs.partition.PartitionedQueues;
import dev.delayjobs.partition.QueueLayouts;
import dev.delayjobs.payload.Upcasters;
import dev.delayjobs.redis.DataFormat;
import dev.delayjobs.redis.MemoryPolicies;
import dev.delayjobs.redis.QueueControls;
import dev.delayjobs.redis.QueueLayoutStore;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.redis.RequestMemo;
import dev.delayjobs.redis.ScheduleStore;
import dev.delayjobs.listener.ListenerContainer;
import dev.delayjobs.schedule.DelaySchedules;
import dev.delayjobs.schedule.RecurringAnnotationBeanPostProcessor;
import dev.delayjobs.schedule.RedisDelaySchedules;
import dev.delayjobs.schedule.ScheduleTimer;
import dev.delayjobs.threads.WorkerThreads;
import dev.delayjobs.observation.DelayHandlerObservationConvention;
import dev.delayjobs.observation.DelayPublishObservationConvention;
import dev.delayjobs.observation.ObservedJobTracing;
import dev.delayjobs.timer.QueueWatchdog;
import dev.delayjobs.transaction.AfterCommitDeferral;
import tools.jackson.databind.json.JsonMapper;

/**
 * Delay queues on the application's {@link RedissonClient}: a {@link DelayPublisher}, the
 * watchdog timer, and a listener container for every {@code @DelayedHandler} method.
 */
@AutoConfiguration(afterName = { "org.redisson.spring.starter.RedissonAutoConfigurationV4",
        "org.redisson.spring.starter.RedissonAutoConfigurationV2",
        "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration" })
@ConditionalOnClass(RedissonClient.class)
@ConditionalOnBean(RedissonClient.class)
@ConditionalOnProperty(prefix = "delay", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(DelayProperties.class)
public final class DelayAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    static DelayedHandlerAnnotationBeanPostProcessor delayedHandlerAnnotationBeanPostProcessor() {
        return new DelayedHandlerAnnotationBeanPostProcessor();
    }

    @Bean
    @ConditionalOnMissingBean
    static RecurringAnnotationBeanPostProcessor delayRecurringAnnotationBeanPostProcessor() {
        return new RecurringAnnotationBeanPostProcessor();
    }

    /** The schedules of the queues in Redis (docs/schedules.md). */
    @Bean
    @ConditionalOnMissingBean
    ScheduleStore delayScheduleStore(RedissonClient redisson, ConfiguredSettings settings) {
        return new ScheduleStore(redisson, settings.keyPrefix());
    }

    /** Declares the {@code @Recurring} schedules at start and turns due ticks into jobs. */
    @Bean
    @ConditionalOnMissingBean
    ScheduleTimer delayScheduleTimer(ScheduleStore store, RecurringAnnotationBeanPostProcessor declared,
            ObjectProvider<ListenerContainerRegistry> registry, QueueLayouts layouts, WorkerThreads threads) {
        return new ScheduleTimer(store, declared, () -> registry.stream()
                .flatMap(r -> r.getContainers().stream().map(ListenerContainer::queue)).toList(), layouts, threads);
    }

    /** Schedules created at run time ({@link DelaySchedules}). */
    @Bean
    @ConditionalOnMissingBean(DelaySchedules.class)
    RedisDelaySchedules delaySchedules(ScheduleStore store, PayloadCodec codec, ScheduleTimer timer) {
        return new RedisDelaySchedules(store, codec, timer);
    }

    /** The settings the queues run with; building them checks every delay.* property ({@link PropertyChecks}). */
    @Bean
    @ConditionalOnMissingBean
    ConfiguredSettings delayConfiguredSettings(DelayProperties properties, ResourceLoader resourceLoader) {
        return new ConfiguredSettings(properties, resourceLoader.getClassLoader());
    }

    /**
     * What becomes of a failed job: not retried for the configured exception classes, else retried
     * after the backoff its handler runs with (properties and {@code @DelayedHandler} attributes).
     */
    @Bean
    @ConditionalOnMissingBean
    JobFailurePolicy delayJobFailurePolicy(ConfiguredSettings settings, ObjectProvider<ListenerContainerRegistry> registry) {
        return new ConfiguredFailurePolicy(queue -> registry.getObject().getContainer(queue)
                .map(container -> container.settings().backoff())
                .orElseGet(() -> settings.forQueue(queue).backoff()), settings::notRetryableExceptions);
    }

    @Bean
    @ConditionalOnMissingBean
    RedisJobStore delayJobStore(RedissonClient redisson, ConfiguredSettings settings) {
        // the longest record a consumer reads: the payload limit, plus the record header and headers
        int longestRecord = (int) Math.min(Integer.MAX_VALUE, settings.maxPayloadBytes() + 8192);
        RedisJobStore store;
        try {
            store = new RedisJobStore(redisson, settings.keyPrefix(), longestRecord,
                    partition -> settings.replicaConfirmation(partition.queue().value()), settings.bridgedLists());
            store.requestMemoLifetime(settings.longestReplicaConfirmation());
        }
        catch (RequestMemo.SettingsNotCovered ex) {
            throw new FailureAnalyzedException(ex.getMessage() + ". A copy that ran after its memo expired would "
                    + "publish, claim or cancel a second time.", "Lower the RedissonClient's timeout, retryAttempts or "
                    + "retryDelay (its maximum delay), or delay.publisher.confirm-timeout, so that Redisson gives up on a "
                    + "command within a few minutes; use a ConstantDelay, EqualJitterDelay, FullJitterDelay or "
                    + "DecorrelatedJitterDelay as retryDelay.");
        }
        // read from the client's configuration here, before anything can publish; else checked at start
        if (!store.keysCheckNeedsRedis() && !store.keysPassUnchanged()) {
            throw StartupChecks.keysRenamed();
        }
        return store;
    }

    /** The partition layout of each queue; those configured are declared when the application starts. */
    @Bean
    @ConditionalOnMissingBean
    QueueLayouts delayQueueLayouts(RedissonClient redisson, ConfiguredSettings settings) {
        return new QueueLayouts(new QueueLayoutStore(redisson, settings.keyPrefix()), settings.partitions(),
                settings.instanceId());
    }

    /**
     * The starter's Redis checks, when the application starts rather than while its beans are built:
     * the key names, the data format (jobs written in a newer one than this release reads are refused,
     * see docs/versioning.md) and the configured partition counts.
     */
    @Bean
    @ConditionalOnMissingBean
    StartupChecks delayStartupChecks(RedisJobStore store, QueueLayouts layouts, RedissonClient redisson,
            ConfiguredSettings settings) {
        return new StartupChecks(store, new DataFormat(redisson, settings.keyPrefix()), layouts);
    }

    @Bean
    @ConditionalOnMissingBean
    PartitionedQueues delayPartitionedQueues(RedisJobStore store, QueueLayouts layouts) {
        return new PartitionedQueues(store, layouts);
    }

    @Bean
    @ConditionalOnMissingBean
    QueueControls delayQueueControls(RedissonClient redisson, ConfiguredSettings settings) {
        return new QueueControls(redisson, settings.keyPrefix());
    }

    @Bean
    @ConditionalOnMissingBean(DelayQueueControl.class)
    RedisDelayQueueControl delayQueueControl(QueueControls controls, RedisJobStore store, PartitionedQueues queues) {
        return new RedisDelayQueueControl(controls, store, queues);
    }

    /** The application's {@link PayloadUpcaster} beans, which bring stored payloads up to their handler's version. */
    @Bean
    @ConditionalOnMissingBean
    Upcasters delayPayloadUpcasters(ObjectProvider<PayloadUpcaster> upcasters) {
        return new Upcasters(upcasters.orderedStream().toList());
    }

    @Bean
    @ConditionalOnMissingBean
    PayloadCodec delayPayloadCodec(ObjectProvider<JsonMapper> jsonMapper, ConfiguredSettings settings, Upcasters upcasters) {
        return new PayloadCodec(jsonMapper.getIfAvailable(JsonMapper::new), settings.maxPayloadBytes(),
                settings.strictPayloads(), upcasters);
    }

    /** Refuses to start with a gap in a payload type's upcaster chain (see docs/payload-versions.md). */
    @Bean
    @ConditionalOnMissingBean
    UpcasterChainCheck delayUpcasterChainCheck(PayloadCodec codec, ObjectProvider<ListenerContainerRegistry> registry,
            ObjectProvider<PayloadUpcaster> upcasters) {
        return new UpcasterChainCheck(codec, registry, upcasters);
    }

    /** The native publisher, or with bridged queues one that offers to their RDelayedQueues and hands it the rest. */
    @Bean
    @ConditionalOnMissingBean(DelayPublisher.class)
    DelayPublisher delayPublisher(RedisJobStore store, PartitionedQueues partitioned, PayloadCodec codec, ObjectProvider<DelayQueueObserver> observers,
            ObjectProvider<PublishDeferral> deferral, DelayProperties properties, ObjectProvider<JobTracing> tracing,
            ObjectProvider<BridgedQueues> bridged) {
        PublishDeferral publishDeferral = deferral.getIfAvailable(() -> PublishDeferral.NONE);
        boolean afterCommit = properties.getPublisher().isAfterCommit();
        RedisDelayPublisher publisher = new RedisDelayPublisher(store, partitioned, codec, events(observers, tracing),
                publishDeferral, afterCommit);
        BridgedQueues queues = bridged.getIfAvailable();
        return queues == null ? publisher
                : new BridgingDelayPublisher(publisher, queues, store.redissonQueues(), publishDeferral, afterCommit);
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(ObservationRegistry.class)
    @ConditionalOnProperty(prefix = "delay.observation", name = "enabled", havingValue = "true")
    static final class ObservationConfiguration {

        @Bean
        @ConditionalOnMissingBean
        JobTracing delayJobTracing(ObjectProvider<ObservationRegistry> registry,
                ObjectProvider<DelayPublishObservationConvention> publishConvention,
                ObjectProvider<DelayHandlerObservationConvention> handlerConvention, DelayProperties properties) {
            return new ObservedJobTracing(registry.getIfAvailable(() -> ObservationRegistry.NOOP),
                    publishConvention.getIfAvailable(), handlerConvention.getIfAvailable(),
                    properties.getObservation().isLegacyNames());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(TransactionSynchronizationManager.class)
    static final class TransactionConfiguration {

        @Bean
        @ConditionalOnMissingBean
        PublishDeferral delayPublishDeferral() {
            return new AfterCommitDeferral();
        }
    }

    @Bean
    @ConditionalOnMissingBean
    MemoryPolicies delayMemoryPolicies(RedissonClient redisson) {
        return new MemoryPolicies(redisson);
    }

    /** A WARN once the application is ready when Redis may evict the queues' keys. */
    @Bean
    @ConditionalOnMissingBean
    MemoryPolicyWarning delayMemoryPolicyWarning(MemoryPolicies policies) {
        return new MemoryPolicyWarning(policies);
    }

    @Bean
    @ConditionalOnMissingBean
    QueueWatchdog delayQueueWatchdog(RedisJobStore store, ConfiguredSettings settings, WorkerThreads threads) {
        return new QueueWatchdog(store, settings.watchdog(), settings.instanceId(), threads);
    }

    /** Every thread of the starter; spring.threads.virtual.enabled=true on Java 21+ makes them virtual. */
    @Bean
    @ConditionalOnMissingBean
    WorkerThreads delayWorkerThreads(Environment environment) {
        return Threading.VIRTUAL.isActive(environment) ? WorkerThreads.VIRTUAL : WorkerThreads.PLATFORM;
    }

    @Bean
    @ConditionalOnMissingBean
    ListenerContainerRegistry delayListenerContainerRegistry(RedisJobStore store, QueueLayouts layouts, QueueControls controls,
            QueueWatchdog watchdog,
            PayloadCodec codec, ConfiguredSettings settings, ObjectProvider<DelayQueueObserver> observers,
            WorkerThreads threads, ObjectProvider<JobTracing> tracing, ObjectProvider<DelayContainerCustomizer> customizers) {
        return new ListenerContainerRegistry(store, layouts, controls, watchdog, codec, settings.shutdownTimeout(),
                events(observers, tracing), threads, () -> customizers.orderedStream().toList());
    }

    /** The one channel of the publisher and the consumers: all observers in the context (the metrics, and any of the application's) as one, and the tracing. */
    static JobEvents events(ObjectProvider<DelayQueueObserver> observers, ObjectProvider<JobTracing> tracing) {
        return new JobEvents(DelayQueueObserver.of(observers.orderedStream().toList()), tracing.getIfAvailable(() -> JobTracing.NONE));
    }
}
