package dev.delayjobs.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.config.ConstantDelay;
import org.redisson.spring.starter.RedissonAutoConfigurationCustomizer;
import org.redisson.spring.starter.RedissonAutoConfigurationV4;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.stereotype.Component;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/**
 * What a new user sees when the application cannot start: Spring Boot's "APPLICATION FAILED TO
 * START" summary, naming the cause and what to do, for each mistake the starter can diagnose.
 */
@ExtendWith(OutputCaptureExtension.class)
class StartupFailureAnalysisTest {

    private static final String FAILED = "APPLICATION FAILED TO START";

    @Component
    static class Checkout {

        Checkout(DelayPublisher publisher) {
        }
    }

    @Component
    static class OrderTimeouts {

        @DelayedHandler(queue = "order-timeout")
        void close(String orderId) {
        }
    }

    /** One retry after 200 ms instead of Redisson's default of several spread over seconds: the same failure, sooner. */
    @Configuration(proxyBeanMethods = false)
    static class OneRetry {

        @Bean
        RedissonAutoConfigurationCustomizer oneRetry() {
            return config -> config.useSingleServer().setRetryAttempts(1)
                    .setRetryDelay(new ConstantDelay(Duration.ofMillis(200)));
        }
    }

    @Test
    void redisDownAtStartupIsOneSummaryWithTheAddress(CapturedOutput output) throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        assertThatThrownBy(() -> TestApps.run("127.0.0.1", closedPort, TestRedis.uniquePrefix(),
                List.of(Checkout.class, OneRetry.class)))
                .hasRootCauseInstanceOf(java.net.ConnectException.class);
        String report = report(output);
        assertThat(report).contains("Redis could not be reached while the application started")
                .contains("127.0.0.1:" + closedPort)
                .contains("Connection refused")
                .contains("spring.data.redis.host and spring.data.redis.port")
                .contains("delay.enabled=false");
    }

    @Test
    void publisherInjectedWhileDisabledSaysDelayEnabledIsFalse(CapturedOutput output) {
        assertThatThrownBy(() -> TestApps.run(TestRedis.uniquePrefix(), List.of(Checkout.class), "delay.enabled=false"))
                .isNotNull();
        assertThat(report(output)).contains("A bean of type 'dev.delayjobs.DelayPublisher'")
                .contains("delay.enabled is false")
                .contains("Remove delay.enabled=false");
    }

    @Test
    void publisherInjectedWithoutRedissonClientSaysWhy(CapturedOutput output) {
        assertThatThrownBy(() -> TestApps.run(TestRedis.uniquePrefix(), List.of(Checkout.class),
                "spring.autoconfigure.exclude=" + RedissonAutoConfigurationV4.class.getName())).isNotNull();
        assertThat(report(output)).contains("A bean of type 'dev.delayjobs.DelayPublisher'")
                .contains("there is no RedissonClient bean")
                .contains("RedissonAutoConfigurationV4) is not excluded");
    }

    @Test
    void handlerWithoutRedissonClientFailsInsteadOfNeverRunning(CapturedOutput output) {
        assertThatThrownBy(() -> TestApps.run(TestRedis.uniquePrefix(), List.of(OrderTimeouts.class),
                "spring.autoconfigure.exclude=" + RedissonAutoConfigurationV4.class.getName())).isNotNull();
        assertThat(report(output)).contains("has @DelayedHandler method OrderTimeouts.close (queue 'order-timeout')")
                .contains("there is no RedissonClient bean");
    }

    @Test
    void invalidSettingNamesTheProperty(CapturedOutput output) {
        assertThatThrownBy(() -> TestApps.run(TestRedis.uniquePrefix(), List.of(OrderTimeouts.class),
                "delay.sweep-interval=-1s")).isNotNull();
        assertThat(report(output)).contains("delay.sweep-interval").contains("must be positive");
    }

    // --- conditions of the back-off check ------------------------------------------------------

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RedissonAutoConfigurationV4.class, JacksonAutoConfiguration.class,
                    DelayAutoConfiguration.class, DelayBackedOffAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=" + TestRedis.host(), "spring.data.redis.port=" + TestRedis.port(),
                    "delay.key-prefix=" + TestRedis.uniquePrefix());

    @Configuration(proxyBeanMethods = false)
    static class HandlerConfig {

        @Bean
        OrderTimeouts orderTimeouts() {
            return new OrderTimeouts();
        }
    }

    @Test
    void backOffCheckIsAbsentWhenTheStarterRuns() {
        runner.withUserConfiguration(HandlerConfig.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(DelayBackedOffAutoConfiguration.class);
        });
    }

    @Test
    void backOffCheckIsAbsentWhenDisabledOnPurpose() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DelayAutoConfiguration.class, DelayBackedOffAutoConfiguration.class))
                .withUserConfiguration(HandlerConfig.class).withPropertyValues("delay.enabled=false")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(DelayBackedOffAutoConfiguration.class);
                });
    }

    @Test
    void backOffCheckFailsTheContextWhenThereIsNoRedissonClient() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DelayAutoConfiguration.class, DelayBackedOffAutoConfiguration.class))
                .withUserConfiguration(HandlerConfig.class)
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasMessageContaining("has @DelayedHandler method OrderTimeouts.close"));
    }

    /** The failure report Spring Boot logged, from its header on. */
    private static String report(CapturedOutput output) {
        String all = output.getAll();
        assertThat(all).contains(FAILED);
        return all.substring(all.lastIndexOf(FAILED));
    }
}
