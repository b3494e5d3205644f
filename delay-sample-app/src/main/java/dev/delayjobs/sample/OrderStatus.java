package dev.delayjobs.sample;

/** Where an order is; stored by name in {@code orders.status}. */
enum OrderStatus {
    /** Placed, waiting for its payment. */
    PENDING_PAYMENT,
    /** Paid in time. */
    PAID,
    /** Not paid within the payment timeout: closed by its order-timeout job. */
    CLOSED
}
