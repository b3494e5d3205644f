package dev.delayjobs.sample;

/**
 * The payload of a {@code receipt-mail} job: send the receipt of paid order {@code orderId}.
 *
 * @param orderId the paid order
 */
record ReceiptMail(long orderId) {
}
