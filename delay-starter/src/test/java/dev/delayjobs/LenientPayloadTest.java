package dev.delayjobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.delayjobs.test.RunningApp;

/** With {@code delay.consumer.strict-payloads=false} payloads are read as Jackson reads them. */
class LenientPayloadTest {

    record OrderTimeout(long orderId) {
    }

    record CustomerReminder(String customerName, long orderId) {
    }

    static class Handlers {

        final List<CustomerReminder> handled = new CopyOnWriteArrayList<>();

        @DelayedHandler(queue = "reminders")
        void remind(CustomerReminder reminder) {
            handled.add(reminder);
        }
    }

    @RegisterExtension
    static final RunningApp<Handlers> app = RunningApp.of(Handlers.class, "delay.consumer.strict-payloads=false");

    @Test
    void missingFieldsBecomeNullAndTheHandlerRuns() {
        app.publisher().publish("reminders", new OrderTimeout(42), Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> app.handlers().handled.size() == 1);
        assertThat(app.handlers().handled).containsExactly(new CustomerReminder(null, 42));
    }
}
