package dev.delayjobs.sample;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.delayjobs.embeddedredis.RedisServerProcess;
import org.apache.commons.logging.Log;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Starts an embedded Redis ({@link RedisServerProcess}) for the sample when the environment names no Redis, so that the
 * app runs on a machine with nothing but Java.
 *
 * <p>A Redis counts as configured when any of {@code spring.data.redis.host}, {@code .port},
 * {@code .url}, {@code .cluster.nodes}, {@code .sentinel.nodes}, {@code spring.redis.redisson.config}
 * or {@code spring.redis.redisson.file} is set (from any source: properties, environment variables,
 * command line). Otherwise a {@code redis-server} is started on a free loopback port (or
 * {@code sample.embedded-redis.port}) and {@code spring.data.redis.host}/{@code port} point at it.
 * {@code sample.embedded-redis.enabled=false} turns this off.
 *
 * <p>The server is stopped by a Spring Boot shutdown handler, which runs when the JVM shuts down and
 * after the application contexts are closed: the delay containers hand back their jobs while Redis is
 * still there.
 *
 * <p>Registered in {@code META-INF/spring.factories} under {@code org.springframework.boot.EnvironmentPostProcessor}
 * (Spring Boot 4 moved the interface out of {@code org.springframework.boot.env}). It runs after the
 * config data post-processor, so {@code application.properties} is visible here.
 */
public class EmbeddedRedisEnvironmentPostProcessor implements EnvironmentPostProcessor, Ordered {

    static final String ENABLED = "sample.embedded-redis.enabled";
    static final String PORT = "sample.embedded-redis.port";
    static final String PROPERTY_SOURCE = "sampleEmbeddedRedis";

    private static final List<String> REDIS_SETTINGS = List.of("spring.data.redis.host", "spring.data.redis.port",
            "spring.data.redis.url", "spring.redis.redisson.config", "spring.redis.redisson.file");
    private static final List<String> REDIS_NODE_LISTS = List.of("spring.data.redis.cluster.nodes",
            "spring.data.redis.sentinel.nodes");

    private final Log log;

    public EmbeddedRedisEnvironmentPostProcessor(DeferredLogFactory logFactory) {
        this.log = logFactory.getLog(EmbeddedRedisEnvironmentPostProcessor.class);
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        if (environment.getPropertySources().contains(PROPERTY_SOURCE)) {
            return;
        }
        if (!environment.getProperty(ENABLED, Boolean.class, true)) {
            log.info("Embedded Redis disabled (" + ENABLED + "=false)");
            return;
        }
        Optional<String> configured = configuredRedis(environment);
        if (configured.isPresent()) {
            log.info("Redis configured by " + configured.get() + "; not starting the embedded Redis");
            return;
        }
        RedisServerProcess redis = RedisServerProcess.builder().port(environment.getProperty(PORT, Integer.class, 0))
                .ownSession().start();
        environment.getPropertySources().addFirst(new MapPropertySource(PROPERTY_SOURCE,
                Map.of("spring.data.redis.host", redis.host(), "spring.data.redis.port", redis.port())));
        stopOnShutdown(environment, redis);
        log.info("No Redis configured: started an embedded Redis on " + redis.host() + ":" + redis.port()
                + " (nothing persisted; it stops with the application). To use your own Redis set "
                + "spring.data.redis.host/port or url; to never start one set " + ENABLED + "=false.");
        log.debug("Embedded Redis binary " + redis.binary() + ", directory " + redis.dir());
    }

    private static Optional<String> configuredRedis(ConfigurableEnvironment environment) {
        for (String name : REDIS_SETTINGS) {
            if (environment.containsProperty(name)) {
                return Optional.of(name);
            }
        }
        Binder binder = Binder.get(environment);
        for (String name : REDIS_NODE_LISTS) {
            if (binder.bind(name, Bindable.listOf(String.class)).map(list -> !list.isEmpty()).orElse(false)) {
                return Optional.of(name);
            }
        }
        return Optional.empty();
    }

    private static void stopOnShutdown(ConfigurableEnvironment environment, RedisServerProcess redis) {
        if (environment.getProperty("spring.main.register-shutdown-hook", Boolean.class, true)) {
            // runs after Spring Boot's shutdown hook has closed the application contexts
            SpringApplication.getShutdownHandlers().add(redis::close);
        }
        else {
            Runtime.getRuntime().addShutdownHook(new Thread(redis::close, "embedded-redis-shutdown"));
        }
    }
}
