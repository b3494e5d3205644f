package dev.delayjobs.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/**
 * Order timeouts with the delay starter: an order that is not paid within
 * {@code sample.orders.payment-timeout} is closed by a delayed job.
 *
 * <p>When no Redis is configured, {@link EmbeddedRedisEnvironmentPostProcessor} starts one.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class SampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(SampleApplication.class, args);
    }
}
