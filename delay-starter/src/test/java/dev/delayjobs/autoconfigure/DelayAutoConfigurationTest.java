package dev.delayjobs.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static dev.delayjobs.test.TestPartitions.whole;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.spring.starter.RedissonAutoConfigurationV4;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.JobInfo;
import dev.delayjobs.core.PayloadCodec;
import dev.delayjobs.core.PublishDeferral;
import dev.delayjobs.core.RedisDelayPublisher;
import dev.delayjobs.listener.DelayedHandlerAnnotationBeanPostProcessor;
import dev.delayjobs.listener.ListenerContainerRegistry;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.test.TestRedis;
import dev.delayjobs.timer.QueueWatchdog;
import dev.delayjobs.timer.WatchdogSettings;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.json.JsonMapper;
import dev.delayjobs.queue.QueueName;
import dev.delayjobs.partition.QueueLayout;

/** One test per condition of {@link DelayAutoConfiguration}, on the shared test Redis. */
class DelayAutoConfigurationTest {

    /** The beans the starter contributes; a user of the starter injects or relies on each of them. */
    private static final List<Class<?>> STARTER_BEANS = List.of(DelayPublisher.class, RedisJobStore.class,
            QueueWatchdog.class, ListenerContainerRegistry.class, PayloadCodec.class,
            DelayedHandlerAnnotationBeanPostProcessor.class);

    record OrderTimeout(long orderId, String customerNote) {
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RedissonAutoConfigurationV4.class, JacksonAutoConfiguration.class,
                    DelayAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=" + TestRedis.host(),
                    "spring.data.redis.port=" + TestRedis.port(),
                    "delay.key-prefix=" + TestRedis.uniquePrefix());

    // --- conditions ---------------------------------------------------------------------------

    @Test
    void contributesEveryStarterBeanByDefault() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            for (Class<?> type : STARTER_BEANS) {
                assertThat(context).as(type.getSimpleName()).hasSingleBean(type);
            }
            assertThat(context).getBean(DelayPublisher.class).isInstanceOf(RedisDelayPublisher.class);
        });
    }

    @Test
    void defersPublishesToTheCommitWithSpringTransactionsAndNotWithout() {
        runner.run(context -> assertThat(context).getBean(PublishDeferral.class)
                .isInstanceOf(dev.delayjobs.transaction.AfterCommitDeferral.class));
        runner.withClassLoader(new FilteredClassLoader(org.springframework.transaction.support.TransactionSynchronizationManager.class))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(PublishDeferral.class);
                    assertThat(context).hasSingleBean(DelayPublisher.class);
                });
        runner.withBean(PublishDeferral.class, () -> PublishDeferral.NONE)
                .run(context -> assertThat(context).getBean(PublishDeferral.class).isSameAs(PublishDeferral.NONE));
    }

    @Test
    void observesPublishingAndHandlingOnlyWhenEnabled() {
        runner.run(context -> assertThat(context).doesNotHaveBean(dev.delayjobs.core.JobTracing.class));
        runner.withPropertyValues("delay.observation.enabled=true")
                .run(context -> assertThat(context).getBean(dev.delayjobs.core.JobTracing.class)
                        .isInstanceOf(dev.delayjobs.observation.ObservedJobTracing.class));
        runner.withPropertyValues("delay.observation.enabled=true")
                .withClassLoader(new FilteredClassLoader(io.micrometer.observation.ObservationRegistry.class))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(dev.delayjobs.core.JobTracing.class);
                });
    }

    @Test
    void aRedissonNameMapperIsRefusedAtStartupWithTheReason() {
        runner.withBean(org.redisson.spring.starter.RedissonAutoConfigurationCustomizer.class,
                () -> config -> config.useSingleServer().setNameMapper(new org.redisson.config.NameMapper() {
                    @Override
                    public String map(String name) {
                        return "tenant-1:" + name;
                    }

                    @Override
                    public String unmap(String name) {
                        return name.substring("tenant-1:".length());
                    }
                }))
                .run(context -> {
                    assertThat(context).hasFailed().getFailure().rootCause()
                            .hasMessageContaining("a NameMapper is configured");
                    Throwable cause = context.getStartupFailure();
                    while (!(cause instanceof org.springframework.boot.diagnostics.FailureAnalyzedException)) {
                        cause = cause.getCause();
                    }
                    assertThat(((org.springframework.boot.diagnostics.FailureAnalyzedException) cause).analysis().getAction())
                            .contains("Remove the nameMapper").contains("set delay.key-prefix");
                });
    }

    @Test
    void retrySettingsNoRequestMemoCanCoverAreRefusedAtStartupNamingThem() {
        runner.withBean(org.redisson.spring.starter.RedissonAutoConfigurationCustomizer.class,
                () -> config -> config.useSingleServer().setTimeout(60_000).setRetryAttempts(10))
                .run(context -> {
                    assertThat(context).hasFailed().getFailure().rootCause()
                            .hasMessageContaining("timeout 60000 ms, retryAttempts 10, retryDelay EqualJitterDelay");
                    Throwable cause = context.getStartupFailure();
                    while (!(cause instanceof org.springframework.boot.diagnostics.FailureAnalyzedException)) {
                        cause = cause.getCause();
                    }
                    assertThat(((org.springframework.boot.diagnostics.FailureAnalyzedException) cause).analysis().getAction())
                            .contains("Lower the RedissonClient's timeout, retryAttempts or retryDelay");
                });
    }

    @Test
    void backsOffWithoutARedissonClientBean() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, DelayAutoConfiguration.class))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(RedissonClient.class);
                    assertNoStarterBeans(context);
                });
    }

    @Test
    void backsOffWhenRedissonIsNotOnTheClasspath() {
        runner.withClassLoader(new FilteredClassLoader(RedissonClient.class)).run(context -> {
            assertThat(context).hasNotFailed();
            assertNoStarterBeans(context);
        });
    }

    @Test
    void backsOffWhenDisabled() {
        runner.withPropertyValues("delay.enabled=false").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).as("Redisson itself is untouched").hasSingleBean(RedissonClient.class);
            assertNoStarterBeans(context);
        });
    }

    @Test
    void userDelayPublisherReplacesOurs() {
        runner.withUserConfiguration(UserPublisher.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(DelayPublisher.class);
            assertThat(context).getBean(DelayPublisher.class).isSameAs(context.getBean("userPublisher"));
        });
    }

    @Test
    void userJobStoreReplacesOursAndTheStarterWritesThroughIt() {
        RedissonClient own = TestRedis.newClient();
        try {
            String userPrefix = TestRedis.uniquePrefix() + "-user";
            RedisJobStore store = new RedisJobStore(own, userPrefix);
            runner.withBean(RedisJobStore.class, () -> store).run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context).hasSingleBean(RedisJobStore.class);
                assertThat(context).getBean(RedisJobStore.class).isSameAs(store);

                context.getBean(DelayPublisher.class).publish("orders", new OrderTimeout(1, "x"), Duration.ofHours(1),
                        "order-1");
                assertThat(store.find(whole("orders"), "order-1")).as("the publisher writes through the user's store")
                        .isPresent();
                assertThat(own.getKeys().getKeysByPattern(userPrefix + ":*")).isNotEmpty();
            });
        }
        finally {
            own.shutdown();
        }
    }

    @Test
    void userPayloadCodecReplacesOursAndThePublisherUsesIt() {
        PayloadCodec codec = new PayloadCodec(new JsonMapper(), 10, true);
        runner.withBean(PayloadCodec.class, () -> codec).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(PayloadCodec.class);
            assertThat(context).getBean(PayloadCodec.class).isSameAs(codec);
            assertThatThrownBy(() -> context.getBean(DelayPublisher.class).publish("orders",
                    "more than ten bytes of JSON", Duration.ofHours(1)))
                    .as("the user's codec allows 10 bytes, the default 64KB")
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("the maximum is 10");
        });
    }

    @Test
    void userQueueWatchdogReplacesOurs() {
        RedissonClient own = TestRedis.newClient();
        try {
            QueueWatchdog watchdog = new QueueWatchdog(new RedisJobStore(own, TestRedis.uniquePrefix()),
                    new WatchdogSettings(Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(20), 100,
                            Duration.ofDays(1)),
                    "user-instance");
            runner.withBean(QueueWatchdog.class, () -> watchdog).run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context).hasSingleBean(QueueWatchdog.class);
                assertThat(context).getBean(QueueWatchdog.class).isSameAs(watchdog);
                assertThat(watchdog.isRunning()).as("the context runs the user's watchdog").isTrue();
            });
        }
        finally {
            own.shutdown();
        }
    }

    @Test
    void userListenerContainerRegistryReplacesOurs() {
        runner.withUserConfiguration(UserRegistry.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(ListenerContainerRegistry.class);
            assertThat(context).getBean(ListenerContainerRegistry.class).isSameAs(context.getBean("userRegistry"));
        });
    }

    @Test
    void payloadsAreWrittenWithTheApplicationsJsonMapperBean() {
        runner.withUserConfiguration(SnakeCaseMapper.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).getBean(JsonMapper.class).isSameAs(context.getBean("userJsonMapper"));
            DelayPublisher publisher = context.getBean(DelayPublisher.class);
            publisher.publish("orders", new OrderTimeout(42, "ring twice"), Duration.ofHours(1), "order-42");

            JobInfo job = publisher.find("orders", "order-42").orElseThrow();
            assertThat(job.payloadJson()).contains("\"order_id\":42", "\"customer_note\":\"ring twice\"")
                    .doesNotContain("orderId");
        });
    }

    @Test
    void payloadsFollowTheSpringJacksonProperties() {
        runner.withPropertyValues("spring.jackson.property-naming-strategy=KEBAB_CASE").run(context -> {
            assertThat(context).hasNotFailed();
            DelayPublisher publisher = context.getBean(DelayPublisher.class);
            publisher.publish("orders", new OrderTimeout(43, "n"), Duration.ofHours(1), "order-43");

            assertThat(publisher.find("orders", "order-43").orElseThrow().payloadJson())
                    .contains("\"order-id\":43", "\"customer-note\":\"n\"");
        });
    }

    // --- partition layouts and prefetch settings ----------------------------------------------

    @Test
    void aConfiguredPartitionCountIsRecordedAtStartupAndTheBeansAreReplaceable() {
        runner.withPropertyValues("delay.queues.orders.partitions=3").run(context -> {
            assertThat(context).hasSingleBean(dev.delayjobs.partition.QueueLayouts.class)
                    .hasSingleBean(dev.delayjobs.partition.PartitionedQueues.class);
            assertThat(context.getBean(dev.delayjobs.partition.PartitionedQueues.class).layout(QueueName.of("orders")).size()).isEqualTo(3);
            RedisJobStore store = context.getBean(RedisJobStore.class);
            assertThat(new dev.delayjobs.redis.QueueLayoutStore(context.getBean(RedissonClient.class), store.prefix())
                    .recorded(QueueName.of("orders"))).isEqualTo(3);
        });
    }

    @Test
    void aPartitionCountThatWouldStrandJobsFailsStartupWithAnAnalysisNamingTheRecordedCount() {
        String prefix = TestRedis.uniquePrefix();
        RedissonClient redisson = TestRedis.sharedClient();
        new dev.delayjobs.redis.QueueLayoutStore(redisson, prefix).record(QueueName.of("orders"), 2, 1);
        new RedisJobStore(redisson, prefix).publish(QueueLayout.of(QueueName.of("orders"), 2).all().get(1),
                List.of(new dev.delayjobs.redis.NewJob("a", true, 60_000, false, "1")));
        runner.withPropertyValues("delay.key-prefix=" + prefix, "delay.queues.orders.partitions=3").run(context -> {
            assertThat(context).hasFailed();
            org.springframework.boot.diagnostics.FailureAnalysis analysis = new PartitionLayoutFailureAnalyzer()
                    .analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("Queue 'orders' is laid out in 2 partition(s)")
                    .contains("asks for 3").contains("1 waiting or running job(s)");
            assertThat(analysis.getAction()).contains("delay.queues.orders.partitions=2");
        });
    }

    @Test
    void prefetchFollowsThePaceUnlessSetAndQueuesMayTurnItOff() {
        runner.withPropertyValues("delay.queues.off.prefetch=0", "delay.queues.more.prefetch=50")
                .run(context -> {
                    ConfiguredSettings settings = context.getBean(ConfiguredSettings.class);
                    assertThat(settings.forQueue("other").prefetch()).as("follows the pace").isNull();
                    assertThat(settings.forQueue("off").prefetch()).isZero();
                    assertThat(settings.forQueue("more").prefetch()).isEqualTo(50);
                });
    }

    // --- metadata -----------------------------------------------------------------------------

    @Test
    void everyDelayPropertyIsDescribedInTheConfigurationMetadata() throws IOException {
        List<JsonNode> properties = new ArrayList<>();
        for (URL url : Collections.list(
                getClass().getClassLoader().getResources("META-INF/spring-configuration-metadata.json"))) {
            try (InputStream in = url.openStream()) {
                for (JsonNode property : new JsonMapper().readTree(in).path("properties")) {
                    if (property.path("name").asString().startsWith("delay.")) {
                        properties.add(property);
                    }
                }
            }
        }

        assertThat(properties).extracting(p -> p.path("name").asString())
                .contains("delay.sweep-interval", "delay.heartbeat-lease", "delay.max-payload-size",
                        "delay.consumer.backoff.multiplier", "delay.queues");
        assertThat(properties).allSatisfy(p -> assertThat(p.path("description").asString())
                .as("description of %s", p.path("name").asString()).isNotBlank());
        JsonNode sweep = properties.stream().filter(p -> p.path("name").asString().equals("delay.sweep-interval"))
                .findFirst().orElseThrow();
        assertThat(sweep.path("type").asString()).isEqualTo("java.time.Duration");
        assertThat(sweep.path("description").asString()).contains("sweep");
    }

    // --- helpers and user configurations ------------------------------------------------------

    private static void assertNoStarterBeans(AssertableApplicationContext context) {
        for (Class<?> type : STARTER_BEANS) {
            assertThat(context).as(type.getSimpleName()).doesNotHaveBean(type);
        }
    }

    static <T extends Throwable> T causeOfType(Throwable failure, Class<T> type) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }

    @Configuration(proxyBeanMethods = false)
    static class UserPublisher {

        @Bean
        DelayPublisher userPublisher(RedisJobStore store, dev.delayjobs.partition.PartitionedQueues queues, PayloadCodec codec) {
            return new RedisDelayPublisher(store, queues, codec, dev.delayjobs.core.JobEvents.NONE, PublishDeferral.NONE, false);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class UserRegistry {

        @Bean
        ListenerContainerRegistry userRegistry(RedisJobStore store, dev.delayjobs.partition.QueueLayouts layouts,
                dev.delayjobs.redis.QueueControls controls, QueueWatchdog watchdog, PayloadCodec codec) {
            return new ListenerContainerRegistry(store, layouts, controls, watchdog, codec, Duration.ofSeconds(3),
                    dev.delayjobs.core.JobEvents.NONE, dev.delayjobs.threads.WorkerThreads.PLATFORM);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class SnakeCaseMapper {

        @Bean
        JsonMapper userJsonMapper() {
            return JsonMapper.builder().propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE).build();
        }
    }
}
