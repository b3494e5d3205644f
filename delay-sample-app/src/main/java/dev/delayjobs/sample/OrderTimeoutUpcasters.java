package dev.delayjobs.sample;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.delayjobs.PayloadUpcaster;
import tools.jackson.databind.node.ObjectNode;

/**
 * How an {@link OrderTimeout} published by an older release is read today. Version 1 had no
 * {@code reason}: every job of it was a payment timeout. Keep this bean while the endpoint's
 * {@code payloadVersions} of the queue still shows version 1 jobs (docs/payload-versions.md).
 */
@Configuration(proxyBeanMethods = false)
class OrderTimeoutUpcasters {

    @Bean
    PayloadUpcaster orderTimeoutFromVersion1() {
        return PayloadUpcaster.of(OrderTimeout.class, 1,
                json -> ((ObjectNode) json).put("reason", OrderTimeout.PAYMENT_TIMEOUT));
    }
}
