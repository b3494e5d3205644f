package dev.delayjobs.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;

import dev.delayjobs.actuate.DelayQueueMetrics;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The metrics bind without a call to Redis: the context is built, and the meters bound, with a
 * Redis that never answers; the gauges read Redis when scraped, the registry of queues is listed
 * when the application starts.
 */
class MetricsWithoutRedisTest {

    @Test
    void theMetricsBindWithoutCallingRedis() throws Exception {
        try (NoRedis redis = new NoRedis()) {
            redis.runner()
                    .withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
                            CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
                            JacksonAutoConfiguration.class, DelayAutoConfiguration.class, DelayMetricsAutoConfiguration.class))
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        assertThat(context).hasSingleBean(DelayQueueMetrics.class);
                        assertThat(redis.connections()).as("connections to Redis once the metrics are bound").isZero();
                        // bound: a queue this instance starts consuming gets its meters
                        context.getBean(DelayQueueMetrics.class).consuming("orders");
                        MeterRegistry registry = context.getBean(MeterRegistry.class);
                        assertThat(registry.find("delay.jobs.published").tag("queue", "orders").counter()).isNotNull();
                        assertThat(redis.connections()).isZero();
                    });
        }
    }
}
