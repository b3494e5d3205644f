package dev.delayjobs.sample;

import java.time.Clock;
import java.time.ZoneOffset;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.context.annotation.Bean;

/**
 * Order timeouts with the delay starter. An order placed with {@code POST /orders} and not paid within
 * {@code sample.orders.payment-timeout} is closed by its {@code order-timeout} job. Paying it cancels
 * that job and schedules a {@code receipt-mail} job, whose fake mail gateway fails the first sends to
 * show retries and the dead set. Orders live in a database through Spring Data JDBC: H2 in memory
 * unless {@code spring.datasource.url} names another.
 *
 * <p>When no Redis is configured, {@link EmbeddedRedisEnvironmentPostProcessor} starts one.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class SampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(SampleApplication.class, args);
    }

    /** The clock of the orders' timestamps; in milliseconds, which every database stores exactly. */
    @Bean
    Clock clock() {
        return Clock.tickMillis(ZoneOffset.UTC);
    }
}
