package dev.delayjobs.autoconfigure;

import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.ServerResponse;

import dev.delayjobs.actuate.DelayQueuesEndpointLocation;
import dev.delayjobs.dashboard.DashboardPage;
import dev.delayjobs.dashboard.ReactiveDashboardRoutes;
import dev.delayjobs.dashboard.ServletDashboardRoutes;
import dev.delayjobs.redis.RedisJobStore;

/**
 * The dashboard page, when {@code delay.dashboard.enabled=true} in a Spring MVC or WebFlux application
 * with actuator; it finds the endpoint through the {@link DelayQueuesEndpointLocation} of
 * {@link DelayActuatorAutoConfiguration}. Enabled without actuator, startup fails and says what to add
 * ({@link PropertyChecks}).
 */
@AutoConfiguration(after = DelayActuatorAutoConfiguration.class)
@ConditionalOnBean(RedisJobStore.class)
@ConditionalOnProperty(prefix = "delay.dashboard", name = "enabled", havingValue = "true")
public final class DelayDashboardAutoConfiguration {

    /** The page itself, whichever web stack serves it. */
    @Bean
    @ConditionalOnWebApplication
    @ConditionalOnClass(PathMappedEndpoints.class)
    @ConditionalOnMissingBean
    DashboardPage delayDashboardPage(DelayQueuesEndpointLocation endpoint, ConfiguredSettings settings) {
        DelayProperties.Dashboard dashboard = settings.dashboard();
        return new DashboardPage(dashboard.getPath(), endpoint, dashboard.getRefreshInterval());
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass({ RouterFunction.class, PathMappedEndpoints.class })
    static final class DashboardConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "delayDashboardRoutes")
        RouterFunction<ServerResponse> delayDashboardRoutes(DashboardPage page) {
            return ServletDashboardRoutes.of(page);
        }
    }

    /** The same page in a WebFlux application. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
    @ConditionalOnClass(name = "org.springframework.web.reactive.function.server.RouterFunction", value = PathMappedEndpoints.class)
    static final class ReactiveDashboardConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "delayDashboardRoutes")
        org.springframework.web.reactive.function.server.RouterFunction<org.springframework.web.reactive.function.server.ServerResponse>
                delayDashboardRoutes(DashboardPage page) {
            return ReactiveDashboardRoutes.of(page);
        }
    }
}
