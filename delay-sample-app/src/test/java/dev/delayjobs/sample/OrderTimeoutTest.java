package dev.delayjobs.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import dev.delayjobs.testing.DelayQueueTester;
import dev.delayjobs.testing.EmbeddedRedis;

/**
 * The sample's real 30-minute payment timeout, tested the way an application tests its own with
 * the starter's test support: on a test Redis ({@link EmbeddedRedis}; the sample's own bootstrap
 * is switched off), with the queue fast-forwarded instead of waited for.
 */
@SpringBootTest(properties = { "sample.embedded-redis.enabled=false", "sample.orders.payment-timeout=30m" })
@EmbeddedRedis
class OrderTimeoutTest {

    @Autowired
    OrderService orderService;

    @Autowired
    DelayQueueTester tester;

    @Test
    void anUnpaidOrderIsClosedWhenItsThirtyMinutesAreUp() {
        CustomerOrder unpaid = orderService.place(new BigDecimal("42.00"));
        CustomerOrder paid = orderService.place(new BigDecimal("19.99"));
        orderService.pay(paid.id());

        assertThat(tester.fastForward(OrderTimeouts.QUEUE, Duration.ofMinutes(29))).as("not due yet").isZero();
        assertThat(tester.fastForward(OrderTimeouts.QUEUE, Duration.ofMinutes(30))).isEqualTo(1);
        tester.awaitHandled(OrderTimeouts.QUEUE, OrderTimeouts.key(unpaid.id()));

        assertThat(orderService.find(unpaid.id()).status()).isEqualTo(OrderStatus.CLOSED);
        assertThat(orderService.find(paid.id()).status()).isEqualTo(OrderStatus.PAID);
    }
}
