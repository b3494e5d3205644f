package dev.delayjobs.sample;

import java.time.Clock;
import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.PublishRequest;

/**
 * The {@value #QUEUE} queue: one job per order, keyed {@code order-<id>}, that closes the order
 * if it is still unpaid at its payment deadline.
 *
 * <p>Jobs are delivered at least once, and a payment can arrive while the job runs. The handler is
 * therefore one conditional update that only closes an order still waiting for its payment: a
 * redelivered job, or one that lost the race to a payment, changes nothing.
 */
@Component
class OrderTimeouts {

    static final String QUEUE = "order-timeout";

    private static final Logger log = LoggerFactory.getLogger(OrderTimeouts.class);

    private final DelayPublisher delays;
    private final Orders orders;
    private final Clock clock;

    OrderTimeouts(DelayPublisher delays, Orders orders, Clock clock) {
        this.delays = delays;
        this.orders = orders;
        this.clock = clock;
    }

    /** The job key of an order's timeout. */
    static String key(long orderId) {
        return "order-" + orderId;
    }

    /** Schedules the timeout of a new order. */
    void schedule(long orderId, Duration timeout) {
        // replaceExisting: the in-memory database numbers orders from 1 at every start, so a Redis that
        // outlives the app may still hold a job with this key, left by another order of an earlier run
        delays.publish(QUEUE, PublishRequest.of(new OrderTimeout(orderId, OrderTimeout.PAYMENT_TIMEOUT)).delay(timeout).key(key(orderId))
                .replaceExisting());
    }

    /** Cancels the timeout of a paid order; {@code false} if it is running or gone already. */
    boolean cancel(long orderId) {
        return delays.cancel(QUEUE, key(orderId));
    }

    @DelayedHandler(queue = QUEUE)
    void close(OrderTimeout timeout) {
        if (orders.closeIfUnpaid(timeout.orderId(), clock.instant())) {
            log.info("Closed order {}: {}", timeout.orderId(), timeout.reason());
        }
        else {
            log.debug("Order {} is paid, closed or unknown: nothing to do", timeout.orderId());
        }
    }
}
