package dev.delayjobs.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.delayjobs.actuate.DelayQueueMetrics;
import dev.delayjobs.partition.PartitionedQueues;
import dev.delayjobs.redis.RedisJobStore;
import io.micrometer.core.instrument.MeterRegistry;

/** Micrometer metrics of the delay queues, when the application has a {@link MeterRegistry}. */
@AutoConfiguration(after = DelayAutoConfiguration.class, afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ MeterRegistry.class, RedisJobStore.class })
public final class DelayMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    DelayQueueMetrics delayQueueMetrics(PartitionedQueues store, ConfiguredSettings settings) {
        return new DelayQueueMetrics(store, settings.gaugeCacheTtl());
    }
}
