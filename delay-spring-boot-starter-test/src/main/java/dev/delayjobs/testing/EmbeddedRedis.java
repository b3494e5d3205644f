package dev.delayjobs.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the test's application context on a real Redis started for the tests, with no Docker: a
 * {@code redis-server} process (the binary bundled with embedded-redis, Redis 6.2) on a free
 * loopback port, started once per JVM and stopped when the JVM exits. The application's Redisson
 * client reaches it through a {@code DataRedisConnectionDetails} bean, the way Spring Boot's
 * {@code @ServiceConnection} wires a Testcontainers Redis, so {@code spring.data.redis.host} and
 * {@code port} need not be set. Tests share the server: clear the queues a test uses
 * ({@link DelayQueueTester#clear}) or give each test its own queue names or {@code delay.key-prefix}.
 *
 * <pre>{@code
 * @SpringBootTest
 * @EmbeddedRedis
 * class OrderTimeoutTest { ... }
 * }</pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
public @interface EmbeddedRedis {
}
