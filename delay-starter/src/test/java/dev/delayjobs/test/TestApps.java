package dev.delayjobs.test;

import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** Starts real application contexts with the starter on the shared test Redis. */
public final class TestApps {

    private TestApps() {
    }

    /**
     * Runs an application made of {@code sources} (configuration classes, handler beans) with
     * auto-configuration, on the shared Redis, under {@code prefix}, with extra {@code properties}.
     */
    public static ConfigurableApplicationContext run(String prefix, List<Class<?>> sources, String... properties) {
        return run(WebApplicationType.NONE, TestRedis.host(), TestRedis.port(), prefix, sources, properties);
    }

    /** Like {@link #run(String, List, String...)}, on the Redis at {@code host:port} (a server of the test's own). */
    public static ConfigurableApplicationContext run(String host, int port, String prefix, List<Class<?>> sources,
            String... properties) {
        return run(WebApplicationType.NONE, host, port, prefix, sources, properties);
    }

    /** Like {@link #run}, as a web application on a random port ({@code local.server.port}). */
    public static ConfigurableApplicationContext runWeb(String prefix, List<Class<?>> sources, String... properties) {
        return runWeb(TestRedis.host(), TestRedis.port(), prefix, sources, properties);
    }

    /** A web application on a random port, on the Redis at {@code host:port}. */
    public static ConfigurableApplicationContext runWeb(String host, int port, String prefix, List<Class<?>> sources,
            String... properties) {
        List<String> props = new ArrayList<>(List.of("server.port=0"));
        props.addAll(List.of(properties));
        return run(WebApplicationType.SERVLET, host, port, prefix, sources, props.toArray(String[]::new));
    }

    /**
     * Like {@link #run(String, List, String...)}, on the Redis that {@code redis} describes
     * ({@code spring.data.redis.cluster.nodes=...}, {@code spring.data.redis.sentinel.*}).
     */
    public static ConfigurableApplicationContext runOn(List<String> redis, String prefix, List<Class<?>> sources,
            String... properties) {
        return run(WebApplicationType.NONE, redis, prefix, sources, properties);
    }

    private static ConfigurableApplicationContext run(WebApplicationType type, String host, int port, String prefix,
            List<Class<?>> sources, String... properties) {
        return run(type, List.of("spring.data.redis.host=" + host, "spring.data.redis.port=" + port), prefix, sources,
                properties);
    }

    private static ConfigurableApplicationContext run(WebApplicationType type, List<String> redis, String prefix,
            List<Class<?>> sources, String... properties) {
        List<Class<?>> all = new ArrayList<>(sources);
        all.add(0, TestApplication.class);
        List<String> props = new ArrayList<>(redis);
        props.addAll(List.of(
                "delay.key-prefix=" + prefix,
                "spring.main.banner-mode=off",
                "logging.level.org.redisson=warn"));
        props.addAll(List.of(properties));
        return new SpringApplicationBuilder(all.toArray(Class<?>[]::new))
                .web(type)
                .properties(props.toArray(String[]::new))
                .run();
    }
}
