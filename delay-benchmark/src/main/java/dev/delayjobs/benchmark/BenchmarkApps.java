package dev.delayjobs.benchmark;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.embeddedredis.RedisServerProcess;

/** The in-JVM applications the benchmarks start. */
final class BenchmarkApps {

    private BenchmarkApps() {
    }

    /**
     * A non-web application of {@code source} on {@code redis}, its keys under {@code keyPrefix}, its
     * handlers at concurrency 8 (the consumer the group and upcaster benchmarks measure).
     */
    static ConfigurableApplicationContext consumer(Class<?> source, RedisServerProcess redis, String keyPrefix) {
        return new SpringApplicationBuilder(source)
                .web(WebApplicationType.NONE)
                .properties("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
                        "spring.main.banner-mode=off", "logging.level.root=warn", "delay.key-prefix=" + keyPrefix,
                        "delay.consumer.concurrency=8")
                .run();
    }
}
