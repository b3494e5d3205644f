package dev.delayjobs.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import dev.delayjobs.testing.DelayQueueTester;
import dev.delayjobs.testing.EmbeddedRedis;

/**
 * {@link OrderTimeout} gained a {@code reason} in version 2: a timeout the previous release
 * published (version 1, no reason) still closes its order, and every stored example still binds.
 */
@SpringBootTest(properties = "sample.embedded-redis.enabled=false")
@EmbeddedRedis
class OrderTimeoutVersionsTest {

    @Autowired
    OrderService orderService;

    @Autowired
    DelayQueueTester tester;

    @Test
    void aTimeoutPublishedAsVersionOneClosesItsOrder() {
        CustomerOrder unpaid = orderService.place(new BigDecimal("42.00"));
        String id = tester.storePayload(OrderTimeouts.QUEUE, "{\"orderId\":" + unpaid.id() + "}", 1);
        tester.awaitHandled(OrderTimeouts.QUEUE, id);
        assertThat(orderService.find(unpaid.id()).status()).isEqualTo(OrderStatus.CLOSED);
    }

    @Test
    void everyStoredExampleStillBinds() {
        assertThat(tester.assertExamplesBind(OrderTimeout.class, "payloads/order-timeout")).isEqualTo(2);
    }
}
