package dev.delayjobs.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.reactive.TransactionSynchronizationManager;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.ReactiveDelayPublisher;
import dev.delayjobs.bridge.BridgedQueues;
import dev.delayjobs.bridge.BridgingDelayPublisher;
import dev.delayjobs.core.DelayQueueObserver;
import dev.delayjobs.core.JobTracing;
import dev.delayjobs.core.PayloadCodec;
import dev.delayjobs.core.PublishDeferral;
import dev.delayjobs.core.RedisDelayPublisher;
import dev.delayjobs.core.RedisReactiveDelayPublisher;
import dev.delayjobs.partition.PartitionedQueues;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.transaction.ReactiveAfterCommitDeferral;
import reactor.core.publisher.Mono;

/**
 * The reactive publisher, with Reactor on the classpath: a face of the blocking publisher's native
 * part (sharing its coalescing), or of its own when the application defines another publisher.
 */
@AutoConfiguration(after = DelayAutoConfiguration.class)
@ConditionalOnClass(Mono.class)
@ConditionalOnBean(RedisJobStore.class)
public final class DelayReactiveAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    ReactiveDelayPublisher delayReactivePublisher(ObjectProvider<DelayPublisher> publisher, RedisJobStore store,
            PartitionedQueues partitioned, PayloadCodec codec, ObjectProvider<DelayQueueObserver> observers,
            DelayProperties properties, ObjectProvider<JobTracing> tracing,
            ObjectProvider<RedisReactiveDelayPublisher.CommitDeferral> deferral, ObjectProvider<BridgedQueues> bridged) {
        DelayPublisher blocking = publisher.getIfAvailable();
        if (blocking instanceof BridgingDelayPublisher bridging) {
            blocking = bridging.nativePublisher();
        }
        RedisDelayPublisher shared = blocking instanceof RedisDelayPublisher own ? own
                : new RedisDelayPublisher(store, partitioned, codec, DelayAutoConfiguration.events(observers, tracing),
                        PublishDeferral.NONE, properties.getPublisher().isAfterCommit());
        BridgedQueues queues = bridged.getIfAvailable();
        return new RedisReactiveDelayPublisher(shared,
                deferral.getIfAvailable(() -> RedisReactiveDelayPublisher.CommitDeferral.NONE),
                queues == null ? (queue, what) -> { }
                        : (queue, what) -> queues.refuseIfOffered(queue, what + " through the reactive publisher"));
    }

    /** Publishes that wait for the commit of a reactive transaction, with spring-tx's reactive support. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(TransactionSynchronizationManager.class)
    static final class ReactiveTransactionConfiguration {

        @Bean
        @ConditionalOnMissingBean
        RedisReactiveDelayPublisher.CommitDeferral delayReactiveCommitDeferral() {
            return new ReactiveAfterCommitDeferral();
        }
    }
}
