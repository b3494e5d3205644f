package dev.delayjobs.autoconfigure;

import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.analyzer.AbstractInjectionFailureAnalyzer;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

/**
 * A bean of the starter (a {@code DelayPublisher}, say) was injected but the starter backed off:
 * says why ({@code delay.enabled=false}, or no {@code RedissonClient}) and what to do. Runs before
 * Spring Boot's generic analysis of a missing bean, which names neither.
 */
final class DelayBeanMissingFailureAnalyzer extends AbstractInjectionFailureAnalyzer<NoSuchBeanDefinitionException>
        implements Ordered {

    private final BeanFactory beanFactory;
    private final Environment environment;

    DelayBeanMissingFailureAnalyzer(BeanFactory beanFactory, Environment environment) {
        this.beanFactory = beanFactory;
        this.environment = environment;
    }

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, NoSuchBeanDefinitionException cause, String description) {
        Class<?> type = cause.getResolvableType() != null ? cause.getResolvableType().resolve() : cause.getBeanType();
        if (type == null || !type.getName().startsWith("dev.delayjobs.")) {
            return null;
        }
        String wanted = "A bean of type '" + type.getName() + "'" + (description != null ? ", required by " + description + "," : "");
        if (!environment.getProperty("delay.enabled", Boolean.class, true)) {
            return new FailureAnalysis(wanted + " does not exist: delay.enabled is false, so the delay starter defined "
                    + "none of its beans.", "Remove delay.enabled=false (or set it to true), or do not inject "
                    + type.getSimpleName() + " where delay queues are disabled.", cause);
        }
        if (beanFactory instanceof ListableBeanFactory beans && beans.getBeanNamesForType(RedissonClient.class).length == 0) {
            return new FailureAnalysis(wanted + " does not exist: the delay starter runs on the application's "
                    + "RedissonClient, and there is no RedissonClient bean, so it defined none of its beans.",
                    "Let Redisson's Spring Boot starter (a dependency of delay-spring-boot-starter) build the client from "
                            + "spring.data.redis.*: check that its auto-configuration (org.redisson.spring.starter."
                            + "RedissonAutoConfigurationV4) is not excluded, e.g. by spring.autoconfigure.exclude or "
                            + "@SpringBootApplication(exclude = ...). Or define a RedissonClient @Bean of your own.",
                    cause);
        }
        return null;
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
