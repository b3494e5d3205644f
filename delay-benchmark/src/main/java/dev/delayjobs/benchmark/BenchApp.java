package dev.delayjobs.benchmark;

import org.redisson.spring.starter.RedissonAutoConfigurationCustomizer;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/** The application under test: the starter's auto-configuration, one handler, and the command counter. */
@SpringBootConfiguration
@EnableAutoConfiguration
class BenchApp {

    @Bean
    RedissonAutoConfigurationCustomizer benchmarkCommandCounter() {
        return config -> {
            config.setNettyHook(new CommandCounter());
            // -Dbenchmark.redisson-references=false: no live-object check of every argument Redisson encodes
            config.setReferenceEnabled(Boolean.parseBoolean(System.getProperty("benchmark.redisson-references", "true")));
        };
    }

    @Bean
    StarterEngine.Handler benchmarkHandler() {
        return new StarterEngine.Handler();
    }
}
