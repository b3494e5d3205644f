package dev.delayjobs.sample;

/** Where an order is. */
public enum OrderStatus {
    /** Placed, waiting for its payment. */
    PENDING_PAYMENT,
    /** Paid in time. */
    PAID,
    /** Not paid within the payment timeout: closed by the order-timeout job. */
    CLOSED
}
