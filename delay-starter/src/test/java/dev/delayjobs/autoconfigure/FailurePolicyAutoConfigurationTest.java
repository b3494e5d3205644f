package dev.delayjobs.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.Test;
import org.redisson.spring.starter.RedissonAutoConfigurationV4;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.FixedBackOff;

import dev.delayjobs.JobFailurePolicy;
import dev.delayjobs.listener.ConfiguredFailurePolicy;
import dev.delayjobs.test.TestRedis;

/** The failure policy the starter defines from the properties, and an application's bean in its place. */
class FailurePolicyAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RedissonAutoConfigurationV4.class, JacksonAutoConfiguration.class,
                    DelayAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=" + TestRedis.host(),
                    "spring.data.redis.port=" + TestRedis.port(),
                    "delay.key-prefix=" + TestRedis.uniquePrefix());

    @Test
    void theDefaultPolicyFollowsTheProperties() {
        runner.withPropertyValues("delay.consumer.not-retryable-exceptions=java.lang.IllegalArgumentException",
                "delay.queues.mails.not-retryable-exceptions[0]=java.util.concurrent.TimeoutException",
                "delay.queues.mails.backoff.initial=250ms", "delay.queues.mails.backoff.jitter=0").run(context -> {
                    JobFailurePolicy policy = context.getBean(JobFailurePolicy.class);
                    assertThat(policy).isInstanceOf(ConfiguredFailurePolicy.class);
                    assertThat(policy.isRetryable("orders", new IllegalArgumentException())).isFalse();
                    assertThat(policy.isRetryable("orders", new TimeoutException())).isTrue();
                    assertThat(policy.isRetryable("mails", new IllegalArgumentException())).isTrue();
                    assertThat(policy.isRetryable("mails", new TimeoutException())).isFalse();
                    assertThat(policy.backOff("mails").start().nextBackOff()).isEqualTo(250);
                });
    }

    @Test
    void anApplicationBeanReplacesTheDefault() {
        runner.withUserConfiguration(OwnPolicy.class)
                .withPropertyValues("delay.consumer.not-retryable-exceptions=java.lang.IllegalArgumentException")
                .run(context -> {
                    assertThat(context).hasSingleBean(JobFailurePolicy.class);
                    assertThat(context.getBean(JobFailurePolicy.class)).isSameAs(context.getBean(OwnPolicy.class).policy);
                });
    }

    @Test
    void aNameThatIsNoExceptionClassFailsStartupNamingTheProperty() {
        runner.withPropertyValues("delay.queues.mails.not-retryable-exceptions=com.acme.NoSuchException").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().isInstanceOf(InvalidConfigurationPropertyValueException.class)
                    .hasMessageContaining("delay.queues.mails.not-retryable-exceptions")
                    .hasMessageContaining("com.acme.NoSuchException");
        });
        runner.withPropertyValues("delay.consumer.not-retryable-exceptions=java.lang.String").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().isInstanceOf(InvalidConfigurationPropertyValueException.class)
                    .hasMessageContaining("delay.consumer.not-retryable-exceptions")
                    .hasMessageContaining("java.lang.String is not an exception");
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnPolicy {

        final JobFailurePolicy policy = new JobFailurePolicy() {

            @Override
            public boolean isRetryable(String queue, Throwable failure) {
                return true;
            }

            @Override
            public BackOff backOff(String queue) {
                return new FixedBackOff(5000, 10);
            }
        };

        @Bean
        JobFailurePolicy ownFailurePolicy() {
            return policy;
        }
    }
}
