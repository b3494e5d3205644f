package dev.delayjobs.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static dev.delayjobs.test.TestPartitions.whole;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

import dev.delayjobs.DelayContainerCustomizer;
import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/** {@link DelayContainerCustomizer} beans change each queue's container, in order, before it starts. */
class ContainerCustomizerTest {

    static class Handlers {

        /** Opens once three handler calls run at once: only with three workers. */
        final CountDownLatch together = new CountDownLatch(3);

        @DelayedHandler(queue = "customized", concurrency = "1")
        void handle(String value) throws InterruptedException {
            together.countDown();
            together.await(20, TimeUnit.SECONDS);
        }

        @DelayedHandler(queue = "held-back")
        void holdBack(String value) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Customizers {

        @Bean
        @Order(2)
        DelayContainerCustomizer threeWorkers() {
            return container -> {
                if (container.getQueue().equals("customized")) {
                    container.setConcurrency(container.getConcurrency() + 1);
                    container.setShutdownTimeout(Duration.ofSeconds(1));
                }
            };
        }

        @Bean
        @Order(1)
        DelayContainerCustomizer twoWorkersAndNoStart() {
            return container -> {
                if (container.getQueue().equals("customized")) {
                    container.setConcurrency(2);
                }
                else {
                    container.setAutoStartup(false);
                }
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class InvalidCustomizer {

        @Bean
        DelayContainerCustomizer noWorkers() {
            return container -> container.setConcurrency(0);
        }
    }

    private ConfigurableApplicationContext context;

    @AfterEach
    void close() {
        if (context != null) {
            context.close();
        }
    }

    @Test
    void customizersApplyInOrderAndTheChangesTakeEffect() throws Exception {
        context = TestApps.run(TestRedis.uniquePrefix(), List.of(Handlers.class, Customizers.class));
        ListenerContainerRegistry registry = context.getBean(ListenerContainerRegistry.class);

        // order 1 set 2, order 2 added one: 3 workers where the annotation says 1
        assertThat(registry.getContainer("customized").orElseThrow().settings().concurrency()).isEqualTo(3);
        assertThat(context.getBean(RedisJobStore.class).stats(whole("customized")).instances())
                .singleElement().satisfies(instance -> assertThat(instance.workers()).isEqualTo(3));
        DelayPublisher publisher = context.getBean(DelayPublisher.class);
        for (int i = 0; i < 3; i++) {
            publisher.publish("customized", "job-" + i, Duration.ZERO);
        }
        assertThat(context.getBean(Handlers.class).together.await(20, TimeUnit.SECONDS))
                .as("three handler calls at once").isTrue();

        ListenerContainer heldBack = registry.getContainer("held-back").orElseThrow();
        assertThat(heldBack.settings().autoStartup()).isFalse();
        assertThat(heldBack.isRunning()).isFalse();
    }

    @Test
    void aValueThatCannotWorkStopsTheStartNamingTheSetting() {
        assertThatThrownBy(() -> context = TestApps.run(TestRedis.uniquePrefix(), List.of(Handlers.class, InvalidCustomizer.class)))
                .hasStackTraceContaining("set an invalid value on queue '")
                .hasStackTraceContaining("concurrency must be between 1 and 1000, was 0");
    }
}
