package dev.delayjobs.sample;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the sample's orders.
 *
 * @param paymentTimeout how long a new order waits for its payment before it is closed
 */
@ConfigurationProperties("sample.orders")
record OrderProperties(@DefaultValue("30s") Duration paymentTimeout) {
}
