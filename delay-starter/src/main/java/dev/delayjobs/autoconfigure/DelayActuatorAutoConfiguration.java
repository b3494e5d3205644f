package dev.delayjobs.autoconfigure;

import java.util.Locale;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.server.WebFilter;

import dev.delayjobs.DelayQueueControl;
import dev.delayjobs.bridge.RedissonQueueMigration;
import dev.delayjobs.actuate.DelayQueuesEndpoint;
import dev.delayjobs.actuate.DelayQueuesEndpointLocation;
import dev.delayjobs.actuate.DelayQueuesHealthIndicator;
import dev.delayjobs.actuate.DelayQueuesWebEndpointExtension;
import dev.delayjobs.actuate.DelayQueuesWriteRequestFilter;
import dev.delayjobs.actuate.ReactiveDelayQueuesWriteRequestFilter;
import dev.delayjobs.listener.ListenerContainerRegistry;
import dev.delayjobs.partition.PartitionedQueues;
import dev.delayjobs.redis.MemoryPolicies;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.schedule.DelaySchedules;

/**
 * The {@code delayqueues} actuator endpoint and the {@code delayQueues} health indicator, each
 * only when its part of actuator is on the classpath.
 */
@AutoConfiguration(after = DelayAutoConfiguration.class)
@ConditionalOnBean(RedisJobStore.class)
public final class DelayActuatorAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(Endpoint.class)
    @ConditionalOnAvailableEndpoint(DelayQueuesEndpoint.class)
    static final class EndpointConfiguration {

        @Bean
        @ConditionalOnMissingBean
        DelayQueuesEndpoint delayQueuesEndpoint(PartitionedQueues store, ObjectProvider<ListenerContainerRegistry> registry,
                DelayQueueControl control, ObjectProvider<RedissonQueueMigration> migration,
                ObjectProvider<DelaySchedules> schedules) {
            return new DelayQueuesEndpoint(store, registry.getIfAvailable(), control, migration.getIfAvailable())
                    .withSchedules(schedules.getIfAvailable());
        }

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnBean(DelayQueuesEndpoint.class)
        DelayQueuesWebEndpointExtension delayQueuesWebEndpointExtension(DelayQueuesEndpoint endpoint) {
            return new DelayQueuesWebEndpointExtension(endpoint);
        }

        @Configuration(proxyBeanMethods = false)
        @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
        @ConditionalOnClass({ OncePerRequestFilter.class, PathMappedEndpoints.class })
        static final class ServletConfiguration {

            @Bean
            @ConditionalOnMissingBean
            DelayQueuesWriteRequestFilter delayQueuesWriteRequestFilter(DelayQueuesEndpointLocation endpoint) {
                return new DelayQueuesWriteRequestFilter(endpoint);
            }
        }

        @Configuration(proxyBeanMethods = false)
        @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
        @ConditionalOnClass({ WebFilter.class, PathMappedEndpoints.class })
        static final class ReactiveConfiguration {

            @Bean
            @ConditionalOnMissingBean
            ReactiveDelayQueuesWriteRequestFilter reactiveDelayQueuesWriteRequestFilter(DelayQueuesEndpointLocation endpoint) {
                return new ReactiveDelayQueuesWriteRequestFilter(endpoint);
            }
        }
    }

    /** Where the endpoint is mapped, or that it is not: for the write filter and the dashboard (servlet or WebFlux). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication
    @ConditionalOnClass(PathMappedEndpoints.class)
    static final class EndpointLocationConfiguration {

        @Bean
        @ConditionalOnMissingBean
        DelayQueuesEndpointLocation delayQueuesEndpointLocation(ObjectProvider<PathMappedEndpoints> endpoints) {
            return new DelayQueuesEndpointLocation(endpoints);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    @ConditionalOnEnabledHealthIndicator("delayqueues")
    static final class HealthConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "delayQueuesHealthIndicator")
        DelayQueuesHealthIndicator delayQueuesHealthIndicator(PartitionedQueues store, ConfiguredSettings settings,
                ObjectProvider<MemoryPolicies> memoryPolicies) {
            DelayProperties.Health health = settings.health();
            return new DelayQueuesHealthIndicator(store, health.getOverdueThreshold(),
                    new Status(health.getOverdueStatus().trim().toUpperCase(Locale.ROOT)), health.getCacheTtl(),
                    memoryPolicies.getIfAvailable());
        }
    }
}
