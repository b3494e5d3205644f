package dev.delayjobs.sample;

import java.time.Instant;

import org.springframework.data.jdbc.repository.query.Modifying;
import org.springframework.data.jdbc.repository.query.Query;
import org.springframework.data.repository.ListCrudRepository;

/**
 * The {@code customer_order} table.
 *
 * <p>Status changes are conditional updates: each one names the status it starts from, so of a
 * payment and a timeout racing for the same order exactly one wins, on any database and with any
 * number of application instances, and a repeated change (a redelivered job) changes nothing.
 */
interface Orders extends ListCrudRepository<CustomerOrder, Long> {

    /** @return {@code true} if the order was waiting for its payment and is now paid */
    @Modifying
    @Query("UPDATE customer_order SET status = 'PAID', updated_at = :now WHERE id = :id AND status = 'PENDING_PAYMENT'")
    boolean markPaid(long id, Instant now);

    /** @return {@code true} if the order was waiting for its payment and is now closed */
    @Modifying
    @Query("UPDATE customer_order SET status = 'CLOSED', updated_at = :now WHERE id = :id AND status = 'PENDING_PAYMENT'")
    boolean closeIfUnpaid(long id, Instant now);

    /** @return {@code true} if the order is paid and had no receipt yet */
    @Modifying
    @Query("UPDATE customer_order SET receipt_sent_at = :now WHERE id = :id AND status = 'PAID' AND receipt_sent_at IS NULL")
    boolean markReceiptSent(long id, Instant now);
}
