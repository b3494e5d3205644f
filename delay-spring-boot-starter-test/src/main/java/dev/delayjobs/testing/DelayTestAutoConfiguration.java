package dev.delayjobs.testing;

import java.time.Duration;

import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.autoconfigure.DelayAutoConfiguration;
import dev.delayjobs.core.PayloadCodec;
import dev.delayjobs.partition.PartitionedQueues;
import dev.delayjobs.redis.QueueTestOperations;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.schedule.ScheduleTimer;

/**
 * A {@link DelayQueueTester} wherever the starter runs and this test module is on the classpath
 * (a test-scoped dependency, so production contexts never see it).
 */
@AutoConfiguration(after = DelayAutoConfiguration.class)
@ConditionalOnBean({ RedisJobStore.class, DelayPublisher.class })
public final class DelayTestAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    DelayQueueTester delayQueueTester(RedisJobStore store, PartitionedQueues queues, RedissonClient redisson,
            DelayPublisher publisher, PayloadCodec codec, ObjectProvider<ScheduleTimer> schedules) {
        return new DelayQueueTester(queues, new QueueTestOperations(redisson, store.prefix()), publisher,
                Duration.ofSeconds(10), new StoredExamples(store, queues, codec), schedules.getIfAvailable());
    }
}
