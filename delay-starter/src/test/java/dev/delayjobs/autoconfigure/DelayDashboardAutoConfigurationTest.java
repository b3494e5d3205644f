package dev.delayjobs.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.redisson.spring.starter.RedissonAutoConfigurationV4;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

import dev.delayjobs.dashboard.DashboardPage;
import dev.delayjobs.test.TestRedis;

/** One test per condition of the dashboard auto-configuration. */
class DelayDashboardAutoConfigurationTest {

    private static final AutoConfigurations CONFIGURATIONS = AutoConfigurations.of(RedissonAutoConfigurationV4.class,
            JacksonAutoConfiguration.class, EndpointAutoConfiguration.class, DelayAutoConfiguration.class,
            DelayActuatorAutoConfiguration.class, DelayDashboardAutoConfiguration.class);

    private final WebApplicationContextRunner web = new WebApplicationContextRunner()
            .withConfiguration(CONFIGURATIONS)
            .withPropertyValues("spring.data.redis.host=" + TestRedis.host(), "spring.data.redis.port=" + TestRedis.port(),
                    "delay.key-prefix=" + TestRedis.uniquePrefix());

    @Test
    void offByDefault() {
        web.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(DashboardPage.class);
            assertThat(context).doesNotHaveBean("delayDashboardRoutes");
        });
    }

    @Test
    void servedWhenEnabledInAServletApplication() {
        web.withPropertyValues("delay.dashboard.enabled=true").run(context -> {
            assertThat(context).hasSingleBean(DashboardPage.class);
            assertThat(context).hasBean("delayDashboardRoutes");
        });
    }

    @Test
    void notServedOutsideAWebApplication() {
        new ApplicationContextRunner().withConfiguration(CONFIGURATIONS)
                .withPropertyValues("spring.data.redis.host=" + TestRedis.host(), "spring.data.redis.port=" + TestRedis.port(),
                        "delay.dashboard.enabled=true")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(DashboardPage.class);
                });
    }

    @Test
    void userPageReplacesOurs() {
        web.withPropertyValues("delay.dashboard.enabled=true")
                .withBean("myPage", DashboardPage.class, () -> new DashboardPage("/mine", null, Duration.ofSeconds(5)))
                .run(context -> assertThat(context).getBean(DashboardPage.class).isSameAs(context.getBean("myPage")));
    }

    @Test
    void enabledWithoutActuatorFailsAndSaysWhatToAdd() {
        web.withPropertyValues("delay.dashboard.enabled=true")
                .withClassLoader(new FilteredClassLoader(PathMappedEndpoints.class))
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("delay.dashboard.enabled")
                        .hasMessageContaining("add spring-boot-starter-actuator"));
    }

    @Test
    void pathThatIsNotAPathIsRefusedAtStartup() {
        web.withPropertyValues("delay.dashboard.enabled=true", "delay.dashboard.path=delay jobs/").run(context ->
                assertThat(context).getFailure().rootCause().hasMessageContaining("delay.dashboard.path")
                        .hasMessageContaining("must start with '/'"));
    }

    @Test
    void refreshFasterThanHalfASecondIsRefusedAtStartup() {
        web.withPropertyValues("delay.dashboard.enabled=true", "delay.dashboard.refresh-interval=100ms").run(context ->
                assertThat(context).getFailure().rootCause().hasMessageContaining("delay.dashboard.refresh-interval")
                        .hasMessageContaining("at least 500ms"));
    }
}
