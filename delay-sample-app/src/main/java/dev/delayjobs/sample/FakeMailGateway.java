package dev.delayjobs.sample;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Stands in for a mail provider that has a bad day: each receipt fails its first
 * {@code sample.mail.failures-before-success} sends (counted in this JVM), then goes out, which
 * here means a log line.
 */
@Component
class FakeMailGateway {

    private static final Logger log = LoggerFactory.getLogger(FakeMailGateway.class);

    private final int failuresBeforeSuccess;
    private final Map<Long, Integer> sends = new ConcurrentHashMap<>();

    FakeMailGateway(MailProperties properties) {
        this.failuresBeforeSuccess = properties.failuresBeforeSuccess();
    }

    /** @throws MailGatewayException for the first sends of each receipt */
    void sendReceipt(CustomerOrder order) {
        int send = sends.merge(order.id(), 1, Integer::sum);
        if (send <= failuresBeforeSuccess) {
            throw new MailGatewayException("mail gateway unavailable (simulated failure " + send + " of "
                    + failuresBeforeSuccess + " for the receipt of order " + order.id() + ")");
        }
        sends.remove(order.id());
        log.info("Sent the receipt of order {}: {} paid", order.id(), order.amount());
    }

    /** The mail provider did not take the mail. */
    static class MailGatewayException extends RuntimeException {

        MailGatewayException(String message) {
            super(message);
        }
    }
}
