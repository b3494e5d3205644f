package dev.delayjobs.autoconfigure;

import java.util.Map;

import org.redisson.api.RedissonClient;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.diagnostics.FailureAnalyzedException;
import org.springframework.context.annotation.Bean;

import dev.delayjobs.DelayedHandler;
import dev.delayjobs.listener.DelayedHandlerAnnotationBeanPostProcessor;

/**
 * Active when the delay starter backed off for want of a {@link RedissonClient} (not because
 * {@code delay.enabled=false}): a {@code @DelayedHandler} method would then never be called, so
 * startup fails and says why, instead of running an application that silently consumes nothing.
 */
@AutoConfiguration(after = DelayAutoConfiguration.class, afterName = {
        "org.redisson.spring.starter.RedissonAutoConfigurationV4",
        "org.redisson.spring.starter.RedissonAutoConfigurationV2" })
@ConditionalOnMissingBean(RedissonClient.class)
@ConditionalOnProperty(prefix = "delay", name = "enabled", matchIfMissing = true)
public final class DelayBackedOffAutoConfiguration {

    @Bean
    static BeanPostProcessor delayedHandlerWithoutRedisCheck() {
        return new DelayedHandlerWithoutRedisCheck();
    }

    /** Fails on the first bean with a {@code @DelayedHandler} method. */
    static final class DelayedHandlerWithoutRedisCheck implements BeanPostProcessor {

        @Override
        public Object postProcessAfterInitialization(Object bean, String beanName) {
            Class<?> target = AopUtils.getTargetClass(bean);
            Map<java.lang.reflect.Method, DelayedHandler> handlers = DelayedHandlerAnnotationBeanPostProcessor.handlerMethods(target);
            if (!handlers.isEmpty()) {
                var first = handlers.entrySet().iterator().next();
                throw new FailureAnalyzedException("Bean '" + beanName + "' has @DelayedHandler method "
                        + target.getSimpleName() + "." + first.getKey().getName() + " (queue '" + first.getValue().queue()
                        + "'), but there is no RedissonClient bean, so the delay starter backed off and nothing would "
                        + "ever call it.", "Let Redisson's Spring Boot starter (a dependency of delay-spring-boot-starter) "
                        + "build the client from spring.data.redis.*: check that its auto-configuration "
                        + "(org.redisson.spring.starter.RedissonAutoConfigurationV4) is not excluded. Or define a "
                        + "RedissonClient @Bean of your own. To run without delay queues on purpose, set delay.enabled=false.");
            }
            return bean;
        }
    }
}
