package dev.delayjobs.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import io.micrometer.tracing.test.simple.SimpleTracer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import dev.delayjobs.core.JobTracing;
import dev.delayjobs.observation.DelayProcessTracingObservationHandler;
import dev.delayjobs.observation.DelaySendTracingObservationHandler;

/** The linking tracing handlers exist only with the observations on and a tracer; legacy names only when asked. */
class DelayTracingAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DelayTracingAutoConfiguration.class));

    @Test
    void theLinkingHandlersComeWithObservationsAndATracer() {
        ApplicationContextRunner traced = runner.withBean(Tracer.class, SimpleTracer::new)
                .withBean(Propagator.class, () -> Propagator.NOOP);
        traced.withPropertyValues("delay.observation.enabled=true").run(context -> {
            assertThat(context).hasSingleBean(DelaySendTracingObservationHandler.class);
            assertThat(context).hasSingleBean(DelayProcessTracingObservationHandler.class);
        });
        traced.run(context -> assertThat(context).doesNotHaveBean(DelaySendTracingObservationHandler.class));
        runner.withPropertyValues("delay.observation.enabled=true")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(DelayProcessTracingObservationHandler.class));
        traced.withPropertyValues("delay.observation.enabled=true").withClassLoader(new FilteredClassLoader(Tracer.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(DelayProcessTracingObservationHandler.class));
    }

    @Test
    void theOldOperationKeyIsEmittedOnlyWithLegacyNames() {
        assertThat(operationKeys("delay.observation.enabled=true")).containsExactlyInAnyOrder("messaging.operation.type",
                "messaging.operation.name");
        assertThat(operationKeys("delay.observation.enabled=true", "delay.observation.legacy-names=true"))
                .containsExactlyInAnyOrder("messaging.operation.type", "messaging.operation.name", "messaging.operation");
    }

    /** The messaging.operation* keys of a publish observed by the starter's JobTracing bean. */
    private List<String> operationKeys(String... properties) {
        List<String> keys = new CopyOnWriteArrayList<>();
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public void onStop(Observation.Context context) {
                context.getLowCardinalityKeyValues().stream().map(KeyValue::getKey)
                        .filter(key -> key.startsWith("messaging.operation")).forEach(keys::add);
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }
        });
        new ApplicationContextRunner().withUserConfiguration(Properties.class, DelayAutoConfiguration.ObservationConfiguration.class)
                .withBean(ObservationRegistry.class, () -> registry).withPropertyValues(properties)
                .run(context -> context.getBean(JobTracing.class).publish("orders", 2, Map::size));
        return keys;
    }

    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties(DelayProperties.class)
    static class Properties {
    }
}
