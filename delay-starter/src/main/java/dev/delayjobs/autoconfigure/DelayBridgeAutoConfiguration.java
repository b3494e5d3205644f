package dev.delayjobs.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.redisson.api.RedissonClient;
import org.redisson.client.codec.Codec;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.type.AnnotatedTypeMetadata;

import dev.delayjobs.bridge.BridgedQueue;
import dev.delayjobs.bridge.BridgedQueues;
import dev.delayjobs.bridge.ElementFormats;
import dev.delayjobs.bridge.RedissonQueueBridge;
import dev.delayjobs.bridge.RedissonQueueMigration;
import dev.delayjobs.core.PayloadCodec;
import dev.delayjobs.listener.ListenerContainerRegistry;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.threads.WorkerThreads;

/**
 * Compatibility mode: queues that bridge an existing Redisson {@code RDelayedQueue}
 * ({@code delay.queues.<queue>.redisson-delayed-queue}). Only when at least one queue does.
 */
@AutoConfiguration(after = DelayAutoConfiguration.class)
@ConditionalOnBean(RedisJobStore.class)
@Conditional(DelayBridgeAutoConfiguration.OnBridgedQueue.class)
public final class DelayBridgeAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    BridgedQueues delayBridgedQueues(ConfiguredSettings settings, DelayProperties properties, PayloadCodec payloads,
            RedissonClient redisson, RedisJobStore store, ListableBeanFactory beans) {
        boolean cluster = redisson.getConfig().isClusterConfig();
        List<BridgedQueue> queues = new ArrayList<>();
        settings.bridgedLists().forEach((queue, list) -> {
            DelayProperties.QueueOverrides o = properties.getQueues().get(queue);
            try {
                queues.add(new BridgedQueue(queue, list, ElementFormats.resolve(queue, o.getRedissonCodec(),
                        o.getRedissonAllowedClasses(), name -> codecBean(beans, name), redisson.getConfig().getCodec(),
                        payloads), !Boolean.FALSE.equals(o.getRedissonPublish())));
            }
            catch (ElementFormats.InvalidFormatException ex) {
                Object value = ex.property().endsWith("allowed-classes") ? o.getRedissonAllowedClasses() : o.getRedissonCodec();
                throw new InvalidConfigurationPropertyValueException(ex.property(), value == null ? "" : value, ex.getMessage());
            }
            if (cluster && !store.redissonQueues().sharesSlot(queue, list)) {
                throw new InvalidConfigurationPropertyValueException("delay.queues." + queue + ".redisson-delayed-queue",
                        list, "on Redis Cluster the queue and the list must hash to the same slot, since one script moves "
                                + "elements from one to the other: name the queue after the list ('" + list + "')");
            }
        });
        return new BridgedQueues(queues);
    }

    @Bean
    @ConditionalOnMissingBean
    RedissonQueueBridge delayRedissonQueueBridge(BridgedQueues queues, RedisJobStore store,
            ListenerContainerRegistry registry, PayloadCodec payloads, WorkerThreads threads) {
        return new RedissonQueueBridge(queues, store.redissonQueues(), registry, payloads, threads);
    }

    @Bean
    @ConditionalOnMissingBean
    RedissonQueueMigration delayRedissonQueueMigration(BridgedQueues queues, RedisJobStore store,
            ListenerContainerRegistry registry, PayloadCodec payloads) {
        return new RedissonQueueMigration(queues, store.redissonQueues(), registry, payloads);
    }

    private static Codec codecBean(ListableBeanFactory beans, String name) {
        return beans.containsBean(name) && beans.isTypeMatch(name, Codec.class) ? beans.getBean(name, Codec.class) : null;
    }

    /** Matches when some delay.queues.&lt;queue&gt;.redisson-delayed-queue is set. */
    static final class OnBridgedQueue extends SpringBootCondition {

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            Map<String, DelayProperties.QueueOverrides> queues = Binder.get(context.getEnvironment())
                    .bind("delay.queues", Bindable.mapOf(String.class, DelayProperties.QueueOverrides.class))
                    .orElse(Map.of());
            List<String> bridged = queues.entrySet().stream().filter(e -> e.getValue().getRedissonDelayedQueue() != null)
                    .map(Map.Entry::getKey).toList();
            return bridged.isEmpty() ? ConditionOutcome.noMatch("no delay.queues.<queue>.redisson-delayed-queue is set")
                    : ConditionOutcome.match("queues bridging a Redisson RDelayedQueue: " + bridged);
        }
    }
}
