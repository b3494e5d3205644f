package dev.delayjobs.autoconfigure;

import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.ServerResponse;

import dev.delayjobs.actuate.DelayQueuesEndpointLocation;
import dev.delayjobs.dashboard.DashboardPage;
import dev.delayjobs.redis.RedisJobStore;

/**
 * The dashboard page, when {@code delay.dashboard.enabled=true} in a Spring MVC application with
 * actuator; it finds the endpoint through the {@link DelayQueuesEndpointLocation} of
 * {@link DelayActuatorAutoConfiguration}. Enabled without actuator, startup fails and says what to add.
 */
@AutoConfiguration(after = DelayActuatorAutoConfiguration.class)
@ConditionalOnBean(RedisJobStore.class)
@ConditionalOnProperty(prefix = "delay.dashboard", name = "enabled", havingValue = "true")
public final class DelayDashboardAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass({ RouterFunction.class, PathMappedEndpoints.class })
    static final class DashboardConfiguration {

        @Bean
        @ConditionalOnMissingBean
        DashboardPage delayDashboardPage(DelayQueuesEndpointLocation endpoint, DelayProperties properties) {
            DelayProperties.Dashboard dashboard = properties.getDashboard();
            String path = dashboard.getPath();
            if (path == null || !path.matches("(/[A-Za-z0-9._~-]+)+")) {
                throw new InvalidConfigurationPropertyValueException("delay.dashboard.path", path,
                        "must start with '/' and hold path segments of letters, digits, '.', '_', '~' or '-', "
                                + "with no trailing '/', such as /delay-jobs");
            }
            if (dashboard.getRefreshInterval() == null || dashboard.getRefreshInterval().toMillis() < 500) {
                throw new InvalidConfigurationPropertyValueException("delay.dashboard.refresh-interval",
                        dashboard.getRefreshInterval(), "must be at least 500ms");
            }
            return new DashboardPage(path, endpoint, dashboard.getRefreshInterval());
        }

        @Bean
        @ConditionalOnMissingBean(name = "delayDashboardRoutes")
        RouterFunction<ServerResponse> delayDashboardRoutes(DashboardPage page) {
            return page.routes();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingClass("org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints")
    static final class WithoutActuatorConfiguration {

        WithoutActuatorConfiguration() {
            throw new InvalidConfigurationPropertyValueException("delay.dashboard.enabled", true,
                    "the dashboard reads and writes through the delayqueues actuator endpoint: add "
                            + "spring-boot-starter-actuator, or set delay.dashboard.enabled=false");
        }
    }
}
