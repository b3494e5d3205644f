package dev.delayjobs.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Every check of a {@code delay.*} value, without Redis: each bad value fails the startup with an
 * {@link InvalidConfigurationPropertyValueException} naming the property (which Spring Boot's
 * failure analyzer reports), whether or not the feature it belongs to (health, metrics, dashboard)
 * is on; the defaults pass.
 */
class PropertyChecksTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            delay.key-prefix                                 | delay.key-prefix=app{1
            delay.max-payload-size                           | delay.max-payload-size=0B
            delay.instance-id                                | delay.instance-id=\u0001
            delay.sweep-interval                             | delay.sweep-interval=0s
            delay.heartbeat-interval                         | delay.heartbeat-interval=-1s
            delay.heartbeat-lease                            | delay.heartbeat-interval=10s; delay.heartbeat-lease=10s
            delay.dead-retention                             | delay.dead-retention=0s
            delay.transfer-batch-size                        | delay.transfer-batch-size=10001
            delay.transfer-batch-size                        | delay.transfer-batch-size=0
            delay.shutdown-timeout                           | delay.shutdown-timeout=-1s
            delay.publisher.confirm-replicas                 | delay.publisher.confirm-replicas=-1
            delay.publisher.confirm-timeout                  | delay.publisher.confirm-timeout=0ms
            delay.queues.bad{name}                           | delay.queues[bad{name}].concurrency=2
            delay.queues.orders.confirm-replicas             | delay.queues.orders.confirm-replicas=-1
            delay.queues.orders.rate-limit                   | delay.queues.orders.rate-limit=50 per second
            delay.queues.orders.partitions                   | delay.queues.orders.partitions=0
            delay.queues.orders.partitions                   | delay.queues.orders.partitions=129
            delay.queues.orders.partitions                   | delay.queues.orders.partitions=2; delay.queues.orders.redisson-delayed-queue=legacy
            delay.queues.orders.rate-limit                   | delay.queues.orders.partitions=4; delay.queues.orders.rate-limit=3/1s
            delay.queues.orders.redisson-codec               | delay.queues.orders.redisson-codec=string
            delay.queues.orders.redisson-delayed-queue       | delay.queues.orders.redisson-delayed-queue=
            delay.queues.orders.concurrency                  | delay.queues.orders.concurrency=0
            delay.queues.orders.prefetch                     | delay.queues.orders.prefetch=1001
            delay.queues.orders.backoff.max                  | delay.queues.orders.backoff.initial=1m; delay.queues.orders.backoff.max=10s
            delay.queues.orders.handler-timeout              | delay.queues.orders.handler-timeout=-5s
            delay.consumer.prefetch                          | delay.consumer.prefetch=-1
            delay.consumer.handler-timeout                   | delay.consumer.handler-timeout=0s
            delay.consumer.max-attempts                      | delay.consumer.max-attempts=0
            delay.consumer.backoff.multiplier                | delay.consumer.backoff.multiplier=0.5
            delay.consumer.not-retryable-exceptions          | delay.consumer.not-retryable-exceptions=com.example.Missing
            delay.queues.orders.not-retryable-exceptions     | delay.queues.orders.not-retryable-exceptions=java.lang.String
            delay.health.overdue-threshold                   | delay.health.overdue-threshold=-1s
            delay.health.overdue-status                      | delay.health.overdue-status=
            delay.health.cache-ttl                           | delay.health.cache-ttl=-1s
            delay.metrics.gauge-cache-ttl                    | delay.metrics.gauge-cache-ttl=-1s
            delay.dashboard.path                             | delay.dashboard.path=delay jobs/
            delay.dashboard.refresh-interval                 | delay.dashboard.refresh-interval=100ms
            """)
    void aBadValueFailsTheStartupNamingItsProperty(String property, String settings) throws Exception {
        try (NoRedis redis = new NoRedis()) {
            runner(redis).withPropertyValues(settings.split(";\\s*")).run(context -> {
                assertThat(context).hasFailed();
                InvalidConfigurationPropertyValueException invalid = DelayAutoConfigurationTest
                        .causeOfType(context.getStartupFailure(), InvalidConfigurationPropertyValueException.class);
                assertThat(invalid).as("cause chain of %s", context.getStartupFailure()).isNotNull();
                assertThat(invalid.getName()).isEqualTo(property);
                assertThat(invalid.getMessage()).contains(property);
                assertThat(redis.connections()).isZero();
            });
        }
    }

    /**
     * The bracket form keeps the map key as written. Without brackets
     * ({@code delay.queues.bad{name}.concurrency}) Spring's binder drops the braces from the key,
     * so that property configures the valid queue {@code badname} and startup succeeds.
     */
    @Test
    void anInvalidQueueNameUnderQueuesSaysWhatANameMayHold() throws Exception {
        try (NoRedis redis = new NoRedis()) {
            runner(redis).withPropertyValues("delay.queues[bad{name}].concurrency=2").run(context -> assertThat(
                    context.getStartupFailure()).rootCause().hasMessageContaining("invalid queue name 'bad{name}'"));
        }
    }

    @Test
    void aRateLimitOutOfRangeSaysTheRange() throws Exception {
        try (NoRedis redis = new NoRedis()) {
            runner(redis).withPropertyValues("delay.queues.sms.rate-limit=0/1s").run(context -> assertThat(
                    context.getStartupFailure()).rootCause()
                    .hasMessageContaining("rate limit permits must be between 1 and 100000, was 0"));
        }
    }

    @Test
    void theDefaultsPass() throws Exception {
        try (NoRedis redis = new NoRedis()) {
            runner(redis).run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(redis.connections()).isZero();
            });
        }
    }

    @Test
    void theDashboardWithoutActuatorFailsAndSaysWhatToAdd() throws Exception {
        try (NoRedis redis = new NoRedis()) {
            runner(redis).withPropertyValues("delay.dashboard.enabled=true")
                    .withClassLoader(new FilteredClassLoader(PathMappedEndpoints.class))
                    .run(context -> {
                        InvalidConfigurationPropertyValueException invalid = DelayAutoConfigurationTest
                                .causeOfType(context.getStartupFailure(), InvalidConfigurationPropertyValueException.class);
                        assertThat(invalid.getName()).isEqualTo("delay.dashboard.enabled");
                        assertThat(invalid.getMessage()).contains("add spring-boot-starter-actuator");
                    });
        }
    }

    private static ApplicationContextRunner runner(NoRedis redis) {
        return redis.runner().withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class,
                DelayAutoConfiguration.class));
    }
}
