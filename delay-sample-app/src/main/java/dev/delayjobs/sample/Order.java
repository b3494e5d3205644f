package dev.delayjobs.sample;

import java.time.Instant;

/**
 * An order as the sample knows it: waiting for its payment until {@code payBy}, then paid or closed.
 *
 * @param id the order id
 * @param status where the order is
 * @param createdAt when it was placed
 * @param payBy when it is closed if still unpaid
 * @param updatedAt when its status last changed
 */
public record Order(long id, OrderStatus status, Instant createdAt, Instant payBy, Instant updatedAt) {

    static Order pending(long id, Instant now, Instant payBy) {
        return new Order(id, OrderStatus.PENDING_PAYMENT, now, payBy, now);
    }

    /** This order, paid; only a pending order can be paid. */
    Order paid(Instant now) {
        if (status != OrderStatus.PENDING_PAYMENT) {
            throw new OrderStateException("order " + id + " cannot be paid: it is " + status);
        }
        return new Order(id, OrderStatus.PAID, createdAt, payBy, now);
    }

    /** This order, closed for want of payment; only a pending order can be closed. */
    Order closed(Instant now) {
        if (status != OrderStatus.PENDING_PAYMENT) {
            throw new OrderStateException("order " + id + " cannot be closed: it is " + status);
        }
        return new Order(id, OrderStatus.CLOSED, createdAt, payBy, now);
    }
}
