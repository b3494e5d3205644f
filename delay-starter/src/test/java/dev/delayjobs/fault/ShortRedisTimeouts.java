package dev.delayjobs.fault;

import java.time.Duration;

import org.redisson.config.ConstantDelay;
import org.redisson.spring.starter.RedissonAutoConfigurationCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Redisson settings for tests that take Redis away: a 1 s command and connect timeout and one
 * retry after 200 ms, so that a call fails within seconds instead of Redisson's default of
 * 3 s per attempt times 5 attempts with 1-2 s between them. The Redisson Spring Boot starter maps
 * {@code spring.data.redis.timeout} and {@code connect-timeout}, but not the retries: those take a
 * {@link RedissonAutoConfigurationCustomizer} (or a full Redisson YAML config).
 */
@Configuration(proxyBeanMethods = false)
class ShortRedisTimeouts {

    @Bean
    RedissonAutoConfigurationCustomizer failFastRedisson() {
        return config -> config.useSingleServer()
                .setTimeout(1000)
                .setConnectTimeout(1000)
                .setRetryAttempts(1)
                .setRetryDelay(new ConstantDelay(Duration.ofMillis(200)));
    }
}
