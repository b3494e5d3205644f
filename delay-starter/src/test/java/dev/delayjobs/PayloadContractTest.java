package dev.delayjobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.delayjobs.test.RunningApp;

/**
 * A payload that does not fit its handler's record goes to the dead set with the field named,
 * instead of running the handler with null; extra fields and optional ones leave room to evolve.
 */
class PayloadContractTest {

    record OrderTimeout(long orderId) {
    }

    /** A handler written against the wrong contract: nothing in an OrderTimeout fills it. */
    record CustomerReminder(String customerName) {
    }

    /** Version 2 of a payload: a field old producers do not send, declared as such. */
    record ReceiptV2(long orderId, Optional<String> currency, @Nullable String note) {
    }

    static class Handlers {

        final List<Object> handled = new CopyOnWriteArrayList<>();

        @DelayedHandler(queue = "reminders", maxAttempts = "5")
        void remind(CustomerReminder reminder) {
            handled.add(reminder);
        }

        @DelayedHandler(queue = "receipts")
        void receipt(ReceiptV2 receipt) {
            handled.add(receipt);
        }
    }

    @RegisterExtension
    static final RunningApp<Handlers> app = RunningApp.of(Handlers.class);

    @Test
    void payloadOfAnotherContractGoesDeadWithTheMissingFieldNamedAndIsNeverHandled() {
        app.publisher().publish("reminders", new OrderTimeout(42), Duration.ZERO, "wrong-contract");
        await().atMost(Duration.ofSeconds(10)).until(
                () -> app.publisher().find("reminders", "wrong-contract").map(JobInfo::state).orElse(null) == JobState.DEAD);

        JobInfo dead = app.publisher().find("reminders", "wrong-contract").orElseThrow();
        assertThat(dead.attempts()).as("reading again would fail again: no retry").isEqualTo(1);
        assertThat(dead.lastError()).contains("payload does not fit CustomerReminder: field 'customerName' is missing");
        assertThat(app.handlers().handled).isEmpty();
    }

    @Test
    void explicitNullOfARequiredFieldIsRefusedToo() {
        app.publisher().publish("reminders", java.util.Collections.singletonMap("customerName", null), Duration.ZERO,
                "null-name");
        await().atMost(Duration.ofSeconds(10)).until(
                () -> app.publisher().find("reminders", "null-name").map(JobInfo::state).orElse(null) == JobState.DEAD);
        assertThat(app.publisher().find("reminders", "null-name").orElseThrow().lastError())
                .contains("field 'customerName' is null");
    }

    @Test
    void extraFieldsAndMissingOptionalOnesAreReadSoPayloadsCanEvolve() {
        // an old producer (no currency, no note) and a newer one (a field this consumer does not know yet)
        app.publisher().publish("receipts", new OrderTimeout(7), Duration.ZERO, "old-producer");
        app.publisher().publish("receipts", Map.of("orderId", 8, "currency", "EUR", "giftWrap", true), Duration.ZERO,
                "new-producer");
        await().atMost(Duration.ofSeconds(10)).until(() -> app.handlers().handled.size() == 2);
        assertThat(app.handlers().handled).containsExactlyInAnyOrder(new ReceiptV2(7, Optional.empty(), null),
                new ReceiptV2(8, Optional.of("EUR"), null));
    }
}
