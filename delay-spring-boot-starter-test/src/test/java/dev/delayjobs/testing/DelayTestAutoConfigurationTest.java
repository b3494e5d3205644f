package dev.delayjobs.testing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.redisson.spring.starter.RedissonAutoConfigurationV4;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.delayjobs.autoconfigure.DelayAutoConfiguration;

class DelayTestAutoConfigurationTest {

    @Test
    void aTesterWhereTheStarterRuns() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RedissonAutoConfigurationV4.class, JacksonAutoConfiguration.class,
                        DelayAutoConfiguration.class, DelayTestAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=" + SharedRedisServer.get().host(),
                        "spring.data.redis.port=" + SharedRedisServer.get().port())
                .run(context -> assertThat(context).hasSingleBean(DelayQueueTester.class));
    }

    @Test
    void noTesterWhereTheStarterBacksOff() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DelayAutoConfiguration.class, DelayTestAutoConfiguration.class))
                .withPropertyValues("delay.enabled=false")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(DelayQueueTester.class);
                });
    }
}
