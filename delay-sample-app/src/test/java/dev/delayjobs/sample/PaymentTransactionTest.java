package dev.delayjobs.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.math.BigDecimal;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.transaction.support.TransactionTemplate;

import dev.delayjobs.DelayPublisher;

/**
 * The receipt job of a payment is published after the payment's commit: a payment whose
 * transaction rolls back leaves no receipt job (and no payment), one that commits leaves one.
 */
@SpringBootTest(properties = "sample.mail.failures-before-success=0")
class PaymentTransactionTest {

    @Autowired
    OrderService orderService;

    @Autowired
    Orders orders;

    @Autowired
    DelayPublisher delays;

    @Autowired
    TransactionTemplate transaction;

    @Test
    void aRolledBackPaymentLeavesNoReceiptJobAndACommittedOneDoes() {
        long rolledBack = orderService.place(new BigDecimal("10.00")).id();
        transaction.executeWithoutResult(status -> {
            orderService.pay(rolledBack); // joins this transaction, which then rolls back
            status.setRollbackOnly();
        });
        assertThat(orders.findById(rolledBack).orElseThrow().status()).isEqualTo(OrderStatus.PENDING_PAYMENT);
        assertThat(delays.find(ReceiptMails.QUEUE, ReceiptMails.key(rolledBack))).isEmpty();

        long committed = orderService.place(new BigDecimal("11.00")).id();
        orderService.pay(committed);
        assertThat(orders.findById(committed).orElseThrow().status()).isEqualTo(OrderStatus.PAID);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> orders.findById(committed).orElseThrow().receiptSentAt() != null);
        assertThat(delays.find(ReceiptMails.QUEUE, ReceiptMails.key(rolledBack))).isEmpty();
    }
}
