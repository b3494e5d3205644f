package dev.delayjobs.autoconfigure;

import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.core.annotation.Order;

import dev.delayjobs.observation.DelayProcessTracingObservationHandler;
import dev.delayjobs.observation.DelaySendTracingObservationHandler;

/**
 * With Micrometer Tracing, the tracing handlers of the delay observations: the spans Spring Boot's
 * handlers would make, plus the link from each job's process span to its publish span. Ordered
 * before Boot's handlers, so its first-matching group gives the delay contexts to these. After
 * Boot's tracing configuration, whose {@link Tracer} and {@link Propagator} they need.
 */
@AutoConfiguration(afterName = "org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration")
@ConditionalOnClass({ ObservationRegistry.class, Tracer.class })
@ConditionalOnBean({ Tracer.class, Propagator.class })
@ConditionalOnProperty(prefix = "delay.observation", name = "enabled", havingValue = "true")
public final class DelayTracingAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @Order(DelaySendTracingObservationHandler.ORDER)
    DelaySendTracingObservationHandler delaySendTracingObservationHandler(Tracer tracer, Propagator propagator) {
        return new DelaySendTracingObservationHandler(tracer, propagator);
    }

    @Bean
    @ConditionalOnMissingBean
    @Order(DelaySendTracingObservationHandler.ORDER)
    DelayProcessTracingObservationHandler delayProcessTracingObservationHandler(Tracer tracer, Propagator propagator) {
        return new DelayProcessTracingObservationHandler(tracer, propagator);
    }
}
