package dev.delayjobs.sample;

import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.PublishRequest;

/**
 * The {@value #QUEUE} queue: one job per order, keyed {@code order-<id>}, that closes the order
 * when it is still unpaid at its payment deadline.
 *
 * <p>The order store decides: paying cancels the job, but a job that is already running when the
 * payment arrives finds the order paid and leaves it alone. Deliveries are at-least-once, so the
 * handler is idempotent.
 */
@Component
class OrderTimeouts {

    static final String QUEUE = "order-timeout";

    private static final Logger log = LoggerFactory.getLogger(OrderTimeouts.class);

    private final DelayPublisher delays;
    private final OrderStore orders;

    OrderTimeouts(DelayPublisher delays, OrderStore orders) {
        this.delays = delays;
        this.orders = orders;
    }

    /** The job key of an order's timeout. */
    static String key(long orderId) {
        return "order-" + orderId;
    }

    /** Schedules the timeout of a new order. */
    void schedule(long orderId, Duration timeout) {
        // replaceExisting: with a Redis that outlives the app, a job left by an earlier run may carry
        // this key, and it belonged to another order (the ids restart with the in-memory store)
        delays.publish(QUEUE, PublishRequest.of(new OrderTimeout(orderId)).delay(timeout).key(key(orderId))
                .replaceExisting());
    }

    /** Cancels the timeout of a paid order; {@code false} if it is running or gone already. */
    boolean cancel(long orderId) {
        return delays.cancel(QUEUE, key(orderId));
    }

    @DelayedHandler(queue = QUEUE)
    void close(OrderTimeout timeout) {
        orders.closeIfUnpaid(timeout.orderId()).ifPresentOrElse(
                order -> log.info("Closed order {}: not paid by {}", order.id(), order.payBy()),
                () -> log.debug("Order {} is paid, closed or unknown: nothing to do", timeout.orderId()));
    }
}
