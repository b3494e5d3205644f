package dev.delayjobs.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.delayjobs.DelayedHandler;
import dev.delayjobs.PayloadUpcaster;
import dev.delayjobs.PayloadVersion;
import dev.delayjobs.payload.UpcasterChainException;

/**
 * A handler whose payload type's upcaster chain has a gap fails startup with a failure analysis
 * naming the missing step, before anything reaches Redis (the client here points at a closed port
 * and connects lazily).
 */
class UpcasterChainCheckTest {

    @PayloadVersion(3)
    record Reminder(String orderId) {
    }

    static class Handler {

        @DelayedHandler(queue = "reminders")
        void remind(Reminder reminder) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class NoRedis {

        @Bean(destroyMethod = "shutdown")
        RedissonClient redisson() throws IOException {
            Config config = new Config();
            config.setLazyInitialization(true);
            config.useSingleServer().setAddress("redis://127.0.0.1:" + closedPort());
            return Redisson.create(config);
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, DelayAutoConfiguration.class))
            .withUserConfiguration(NoRedis.class)
            .withBean("handler", Handler.class);

    @Test
    void aMissingStepFailsStartupNamingIt() {
        runner.withBean("fromOne", PayloadUpcaster.class, () -> PayloadUpcaster.of(Reminder.class, 1, json -> json))
                .run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = new UpcasterChainFailureAnalyzer().analyze(context.getStartupFailure());
                    assertThat(analysis).isNotNull();
                    assertThat(analysis.getDescription()).contains("The handler of queue 'reminders'",
                            Reminder.class.getName(), "no upcaster of " + Reminder.class.getName()
                                    + " from version 2 to 3");
                    assertThat(analysis.getAction()).contains("PayloadUpcaster");
                });
    }

    @Test
    void anUpcasterPastTheTypesVersionFailsStartup() {
        runner.withBean("fromTwo", PayloadUpcaster.class, () -> PayloadUpcaster.of(Reminder.class, 2, json -> json))
                .withBean("fromThree", PayloadUpcaster.class, () -> PayloadUpcaster.of(Reminder.class, 3, json -> json))
                .run(context -> assertThat(context.getStartupFailure())
                        .isInstanceOf(UpcasterChainException.class)
                        .hasMessageContaining("PayloadUpcaster.of(Reminder, 3) goes past the type's version")
                        .hasMessageContaining("@PayloadVersion(3)"));
    }

    @Test
    void twoUpcastersOfOneStepFailStartup() {
        runner.withBean("one", PayloadUpcaster.class, () -> PayloadUpcaster.of(Reminder.class, 2, json -> json))
                .withBean("other", PayloadUpcaster.class, () -> PayloadUpcaster.of(Reminder.class, 2, json -> json))
                .run(context -> assertThat(context.getStartupFailure())
                        .hasMessageContaining("two upcasters of " + Reminder.class.getName() + " from version 2"));
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
