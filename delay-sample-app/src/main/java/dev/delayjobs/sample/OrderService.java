package dev.delayjobs.sample;

import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Places and pays orders, and keeps their delayed jobs in step with the database.
 *
 * <p>The database and Redis are not one transaction, so the order of the steps matters:
 * <ul>
 * <li>Placing writes the order row and its timeout job in one database transaction, the job last.
 * If Redis refuses the job, the row is rolled back: there is no order without its timeout. A job
 * left behind by a failed commit finds no pending order and does nothing.
 * <li>Paying records the payment and publishes the receipt job in one database transaction, the
 * job with {@code afterCommit()}: it is stored once the payment commits, and never if it rolls
 * back. The receipt job is due at once: stored before the commit, it could run before the payment
 * is visible. The timeout is cancelled after the commit too, so a payment that fails to commit
 * keeps its timeout. If Redis fails after the commit, the client gets an error and pays again:
 * paying a paid order answers it again and schedules what is missing. A timeout that could not be
 * cancelled, or was already running, finds the order paid and leaves it alone.
 * </ul>
 * Placing does not defer its job to the commit: a Redis failure after the commit would leave an
 * order that nothing closes, while a job stored before a commit that then fails finds no order.
 */
@Service
class OrderService {

    private final Orders orders;
    private final OrderTimeouts timeouts;
    private final ReceiptMails receipts;
    private final OrderProperties properties;
    private final Clock clock;
    private final TransactionTemplate transaction;

    OrderService(Orders orders, OrderTimeouts timeouts, ReceiptMails receipts, OrderProperties properties,
            Clock clock, TransactionTemplate transaction) {
        this.orders = orders;
        this.timeouts = timeouts;
        this.receipts = receipts;
        this.properties = properties;
        this.clock = clock;
        this.transaction = transaction;
    }

    /** Saves a new order waiting for its payment and schedules its timeout. */
    @Transactional
    CustomerOrder place(BigDecimal amount) {
        Instant now = clock.instant();
        CustomerOrder order = orders.save(CustomerOrder.pending(amount, now, now.plus(properties.paymentTimeout())));
        timeouts.schedule(order.id(), properties.paymentTimeout());
        return order;
    }

    /**
     * Pays an order that waits for its payment, cancels its timeout and schedules its receipt mail.
     * Paying a paid order again changes nothing and answers the paid order, so a client may retry.
     * @throws OrderNotFoundException if there is no such order
     * @throws OrderStateException if the order is closed
     */
    CustomerOrder pay(long id) {
        CustomerOrder order = transaction.execute(status -> {
            boolean paidNow = orders.markPaid(id, clock.instant());
            CustomerOrder paid = find(id);
            if (paid.status() != OrderStatus.PAID) {
                throw new OrderStateException("order " + id + " cannot be paid: it is " + paid.status());
            }
            receipts.scheduleAfterCommit(id, paidNow);
            return paid;
        });
        timeouts.cancel(id);
        return order;
    }

    /** @throws OrderNotFoundException if there is no such order */
    CustomerOrder find(long id) {
        return orders.findById(id).orElseThrow(() -> new OrderNotFoundException(id));
    }
}
