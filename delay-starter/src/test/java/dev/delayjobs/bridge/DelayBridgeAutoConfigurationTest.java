package dev.delayjobs.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.redisson.spring.starter.RedissonAutoConfigurationV4;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.autoconfigure.DelayAutoConfiguration;
import dev.delayjobs.autoconfigure.DelayBridgeAutoConfiguration;
import dev.delayjobs.core.RedisDelayPublisher;
import dev.delayjobs.test.TestRedis;
import dev.delayjobs.queue.QueueName;

/** The conditions and startup checks of {@link DelayBridgeAutoConfiguration}, on the shared test Redis. */
class DelayBridgeAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RedissonAutoConfigurationV4.class, JacksonAutoConfiguration.class,
                    DelayAutoConfiguration.class, DelayBridgeAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=" + TestRedis.host(), "spring.data.redis.port=" + TestRedis.port(),
                    "delay.key-prefix=" + TestRedis.uniquePrefix());

    @Test
    void staysAwayWhenNoQueueBridgesAnRDelayedQueue() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(BridgedQueues.class);
            assertThat(context).doesNotHaveBean(RedissonQueueBridge.class);
            assertThat(context).doesNotHaveBean(RedissonQueueMigration.class);
            assertThat(context).getBean(DelayPublisher.class).isInstanceOf(RedisDelayPublisher.class);
        });
    }

    @Test
    void bridgesAQueueAndPublishesThroughIt() {
        runner.withPropertyValues("delay.queues.orders.redisson-delayed-queue=orders", "delay.queues.orders.redisson-codec=string")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(RedissonQueueBridge.class);
                    assertThat(context).hasSingleBean(RedissonQueueMigration.class);
                    assertThat(context.getBean(BridgedQueues.class).find(QueueName.of("orders"))).get()
                            .satisfies(q -> assertThat(q.target()).isEqualTo("orders"))
                            .satisfies(q -> assertThat(q.format()).isInstanceOf(JsonTextFormat.class));
                    assertThat(context).getBean(DelayPublisher.class).isInstanceOf(BridgingDelayPublisher.class);
                });
    }

    @Test
    void backsOffForTheApplicationsOwnBeans() {
        BridgedQueues own = new BridgedQueues(java.util.List.of());
        runner.withPropertyValues("delay.queues.orders.redisson-delayed-queue=orders", "delay.queues.orders.redisson-codec=string")
                .withBean(BridgedQueues.class, () -> own)
                .run(context -> assertThat(context).getBean(BridgedQueues.class).isSameAs(own));
    }

    @Test
    void refusesABinaryCodecWithoutAllowedClasses() {
        // no redisson-codec: the RedissonClient's codec, Kryo5Codec by default
        runner.withPropertyValues("delay.queues.orders.redisson-delayed-queue=orders").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                    .hasMessageContaining("delay.queues.orders.redisson-allowed-classes")
                    .hasMessageContaining("Kryo5Codec (the RedissonClient's codec) is a binary codec");
        });
    }

    @Test
    void refusesACodecBeanThatDoesNotExist() {
        runner.withPropertyValues("delay.queues.orders.redisson-delayed-queue=orders", "delay.queues.orders.redisson-codec=nope")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause()
                            .hasMessageContaining("delay.queues.orders.redisson-codec")
                            .hasMessageContaining("no Codec bean named 'nope'");
                });
    }

    @ParameterizedTest
    @ValueSource(strings = { "redisson-codec=string", "redisson-allowed-classes=com.acme.Order", "redisson-publish=false" })
    void refusesBridgeSettingsOnAQueueThatBridgesNothing(String setting) {
        runner.withPropertyValues("delay.queues.orders." + setting).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                    .hasMessageContaining("delay.queues.orders." + setting.substring(0, setting.indexOf('=')))
                    .hasMessageContaining("set delay.queues.orders.redisson-delayed-queue");
        });
    }

    @Test
    void acceptsABinaryCodecBeanWithAllowedClasses() {
        runner.withUserConfiguration(BridgeHandlers.class)
                .withPropertyValues("delay.queues.orders.redisson-delayed-queue=orders", "delay.queues.orders.redisson-codec=kryo",
                        "delay.queues.orders.redisson-allowed-classes=" + BridgeHandlers.OrderClose.class.getName(),
                        "test.queue=orders")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(BridgedQueues.class).find(QueueName.of("orders")).get().format().describe())
                            .isEqualTo("Kryo5Codec (classes allowed: " + BridgeHandlers.OrderClose.class.getName() + ")");
                });
    }

    @Test
    void refusesPackagesForKryoWhichRegistersClassesOneByOne() {
        runner.withUserConfiguration(BridgeHandlers.class)
                .withPropertyValues("delay.queues.orders.redisson-delayed-queue=orders", "delay.queues.orders.redisson-codec=kryo",
                        "delay.queues.orders.redisson-allowed-classes=com.acme.orders.*", "test.queue=orders")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause()
                            .hasMessageContaining("list each class by name, not a package");
                });
    }

    @Test
    void refusesABinaryCodecThatCannotBeRestricted() {
        runner.withBean("bytes", org.redisson.client.codec.Codec.class, () -> org.redisson.client.codec.ByteArrayCodec.INSTANCE)
                .withPropertyValues("delay.queues.orders.redisson-delayed-queue=orders", "delay.queues.orders.redisson-codec=bytes",
                        "delay.queues.orders.redisson-allowed-classes=com.acme.Order")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause()
                            .hasMessageContaining("ByteArrayCodec cannot be restricted to a list of allowed classes");
                });
    }
}
