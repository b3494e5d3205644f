package dev.delayjobs.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.redisson.spring.starter.RedissonAutoConfigurationV4;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.actuate.DelayQueueMetrics;
import dev.delayjobs.actuate.DelayQueuesEndpoint;
import dev.delayjobs.actuate.DelayQueuesHealthIndicator;
import dev.delayjobs.actuate.DelayQueuesWebEndpointExtension;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.test.TestRedis;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/** One test per condition of the actuator and metrics auto-configurations. */
class DelayActuatorAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RedissonAutoConfigurationV4.class, JacksonAutoConfiguration.class,
                    EndpointAutoConfiguration.class, DelayAutoConfiguration.class, DelayActuatorAutoConfiguration.class,
                    DelayMetricsAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=" + TestRedis.host(), "spring.data.redis.port=" + TestRedis.port(),
                    "delay.key-prefix=" + TestRedis.uniquePrefix());

    @Test
    void endpointIsContributedWhenExposed() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=delayqueues").run(context -> {
            assertThat(context).hasSingleBean(DelayQueuesEndpoint.class);
            assertThat(context).hasSingleBean(DelayQueuesWebEndpointExtension.class);
        });
    }

    @Test
    void endpointIsNotContributedWhenNotExposed() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(DelayQueuesEndpoint.class);
            assertThat(context).doesNotHaveBean(DelayQueuesWebEndpointExtension.class);
        });
    }

    @Test
    void userEndpointReplacesOurs() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=delayqueues")
                .withBean("myEndpoint", DelayQueuesEndpoint.class, () -> new DelayQueuesEndpoint(null, null, null))
                .run(context -> assertThat(context).getBean(DelayQueuesEndpoint.class)
                        .isSameAs(context.getBean("myEndpoint")));
    }

    @Test
    void healthIndicatorIsContributedByDefault() {
        runner.run(context -> assertThat(context).hasSingleBean(DelayQueuesHealthIndicator.class)
                .hasBean("delayQueuesHealthIndicator"));
    }

    @Test
    void healthIndicatorCanBeDisabled() {
        runner.withPropertyValues("management.health.delayqueues.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(DelayQueuesHealthIndicator.class));
    }

    @Test
    void userHealthIndicatorReplacesOurs() {
        runner.withBean("delayQueuesHealthIndicator", HealthIndicator.class, () -> () -> null)
                .run(context -> assertThat(context).doesNotHaveBean(DelayQueuesHealthIndicator.class)
                        .hasBean("delayQueuesHealthIndicator"));
    }

    @Test
    void metricsAreContributedWhenAMeterRegistryExists() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .run(context -> assertThat(context).hasSingleBean(DelayQueueMetrics.class));
    }

    @Test
    void noMetricsWithoutAMeterRegistry() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(DelayQueueMetrics.class);
        });
    }

    @Test
    void starterWorksWithoutMicrometerOnTheClasspath() {
        runner.withClassLoader(new FilteredClassLoader(MeterRegistry.class)).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(DelayPublisher.class);
            assertThat(context).doesNotHaveBean(DelayQueueMetrics.class);
        });
    }

    @Test
    void starterWorksWithoutActuatorOnTheClasspath() {
        runner.withClassLoader(new FilteredClassLoader(Endpoint.class, HealthIndicator.class))
                .withPropertyValues("management.endpoints.web.exposure.include=*")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(DelayPublisher.class);
                    assertThat(context).hasSingleBean(RedisJobStore.class);
                    assertThat(context).doesNotHaveBean(DelayQueuesEndpoint.class);
                    assertThat(context).doesNotHaveBean(DelayQueuesHealthIndicator.class);
                });
    }

    @Test
    void invalidHealthSettingsFailStartupNamingTheProperty() {
        runner.withPropertyValues("delay.health.overdue-threshold=-1s").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("delay.health.overdue-threshold");
        });
    }
}
