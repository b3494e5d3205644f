package dev.delayjobs.sample;

/**
 * The payload of an {@code order-timeout} job: close order {@code orderId} if it is still unpaid.
 *
 * @param orderId the order to check
 */
record OrderTimeout(long orderId) {
}
