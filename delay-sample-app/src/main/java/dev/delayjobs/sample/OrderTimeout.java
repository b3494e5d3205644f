package dev.delayjobs.sample;

import dev.delayjobs.PayloadVersion;

/**
 * The payload of an {@code order-timeout} job: close order {@code orderId} if it is still unpaid.
 * Version 2 added {@code reason}; jobs published as version 1 (only {@code orderId}) are brought up
 * to date by {@link OrderTimeoutUpcasters}.
 *
 * @param orderId the order to check
 * @param reason why the order is closed, for the log (version 1 jobs were all payment timeouts)
 */
@PayloadVersion(2)
record OrderTimeout(long orderId, String reason) {

    /** The reason of the timeout the sample publishes. */
    static final String PAYMENT_TIMEOUT = "payment-timeout";
}
