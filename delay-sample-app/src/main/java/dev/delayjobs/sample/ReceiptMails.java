package dev.delayjobs.sample;

import java.time.Clock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.NonRetryableJobException;
import dev.delayjobs.PublishRequest;

/**
 * The {@value #QUEUE} queue: one job per paid order, keyed {@code receipt-<id>} and due at once,
 * that mails the receipt through the {@link FakeMailGateway}.
 *
 * <p>This queue shows retries and the dead set. The gateway fails the first
 * {@code sample.mail.failures-before-success} sends of each receipt; the handler lets the
 * exception out, so the job is retried with backoff, up to {@code delay.queues.receipt-mail.max-attempts}
 * deliveries (both set in {@code application.properties}). A receipt that still fails then ends in
 * the dead set, where {@code /actuator/delayqueues/receipt-mail} shows it with its last error.
 */
@Component
class ReceiptMails {

    static final String QUEUE = "receipt-mail";

    private static final Logger log = LoggerFactory.getLogger(ReceiptMails.class);

    private final DelayPublisher delays;
    private final Orders orders;
    private final FakeMailGateway gateway;
    private final Clock clock;

    ReceiptMails(DelayPublisher delays, Orders orders, FakeMailGateway gateway, Clock clock) {
        this.delays = delays;
        this.orders = orders;
        this.gateway = gateway;
        this.clock = clock;
    }

    /** The job key of an order's receipt. */
    static String key(long orderId) {
        return "receipt-" + orderId;
    }

    /**
     * Schedules the receipt of a paid order once the payment's transaction commits (at once outside
     * a transaction); nothing is scheduled if it rolls back.
     * @param paidNow {@code true} when the order was paid just now, {@code false} when the payment is
     *     repeated: then a receipt job that exists already is kept (publishing a key twice makes one job)
     */
    void scheduleAfterCommit(long orderId, boolean paidNow) {
        PublishRequest receipt = PublishRequest.of(new ReceiptMail(orderId)).key(key(orderId)).afterCommit();
        // replaceExisting: a job with this key can only be left by an order of an earlier run (see
        // OrderTimeouts.schedule); a dead one would otherwise stand in for this order's receipt
        delays.publish(QUEUE, paidNow ? receipt.replaceExisting() : receipt);
    }

    @DelayedHandler(queue = QUEUE)
    void send(ReceiptMail mail) {
        CustomerOrder order = orders.findById(mail.orderId())
                .orElseThrow(() -> new NonRetryableJobException("no order " + mail.orderId()));
        if (order.receiptSentAt() != null) {
            log.debug("Receipt of order {} was sent already", order.id());
            return;
        }
        gateway.sendReceipt(order);
        // at-least-once: if the app dies between the send and this update, the receipt goes out twice
        orders.markReceiptSent(order.id(), clock.instant());
    }
}
