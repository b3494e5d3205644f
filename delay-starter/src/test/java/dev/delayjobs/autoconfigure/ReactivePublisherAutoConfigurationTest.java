package dev.delayjobs.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;

import org.junit.jupiter.api.Test;
import org.redisson.spring.starter.RedissonAutoConfigurationV4;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Mono;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.ReactiveDelayPublisher;
import dev.delayjobs.core.RedisReactiveDelayPublisher;
import dev.delayjobs.test.TestRedis;
import dev.delayjobs.transaction.ReactiveAfterCommitDeferral;

/** The conditions of the reactive publisher's auto-configuration: Reactor on the classpath, no bean of the application's. */
class ReactivePublisherAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RedissonAutoConfigurationV4.class, JacksonAutoConfiguration.class,
                    DelayAutoConfiguration.class, DelayReactiveAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=" + TestRedis.host(),
                    "spring.data.redis.port=" + TestRedis.port(),
                    "delay.key-prefix=" + TestRedis.uniquePrefix());

    @Test
    void withReactorTheReactivePublisherIsContributedWithReactiveAfterCommit() {
        runner.run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(DelayPublisher.class);
            assertThat(context).getBean(ReactiveDelayPublisher.class).isInstanceOf(RedisReactiveDelayPublisher.class);
            assertThat(context).getBean(RedisReactiveDelayPublisher.CommitDeferral.class).isInstanceOf(ReactiveAfterCommitDeferral.class);
        });
    }

    @Test
    void withoutReactorThereIsNoReactivePublisherAndTheBlockingOneStays() {
        runner.withClassLoader(new FilteredClassLoader(Mono.class)).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(DelayPublisher.class);
            assertThat(context).doesNotHaveBean("delayReactivePublisher").doesNotHaveBean("delayReactiveCommitDeferral");
        });
    }

    @Test
    void withoutReactiveTransactionsPublishesAreStoredAtOnce() {
        runner.withClassLoader(new FilteredClassLoader(org.springframework.transaction.reactive.TransactionSynchronizationManager.class))
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(ReactiveDelayPublisher.class);
                    assertThat(context).doesNotHaveBean(RedisReactiveDelayPublisher.CommitDeferral.class);
                });
    }

    @Test
    void theApplicationsOwnReactivePublisherIsKept() {
        ReactiveDelayPublisher own = (ReactiveDelayPublisher) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] { ReactiveDelayPublisher.class }, (proxy, method, args) -> Mono.empty());
        runner.withBean("myReactivePublisher", ReactiveDelayPublisher.class, () -> own)
                .run(context -> assertThat(context).getBean(ReactiveDelayPublisher.class).isSameAs(own));
    }
}
