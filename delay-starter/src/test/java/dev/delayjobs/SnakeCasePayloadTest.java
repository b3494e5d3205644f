package dev.delayjobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.delayjobs.test.RunningApp;

/** The required fields of a record payload follow the application's JSON naming strategy. */
class SnakeCasePayloadTest {

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
    static final RunningApp<Handlers> app = RunningApp.of(Handlers.class,
            "spring.jackson.property-naming-strategy=SNAKE_CASE");

    @Test
    void snakeCasedFieldsAreFoundAndCamelCasedOnesAreMissing() {
        app.publisher().publish("reminders", new CustomerReminder("Ada", 1), Duration.ZERO, "written-by-this-app");
        app.publisher().publish("reminders", Map.of("customerName", "Bob", "order_id", 2), Duration.ZERO, "camel");
        await().atMost(Duration.ofSeconds(10)).until(() -> app.handlers().handled.size() == 1
                && app.publisher().find("reminders", "camel").map(JobInfo::state).orElse(null) == JobState.DEAD);
        assertThat(app.handlers().handled).containsExactly(new CustomerReminder("Ada", 1));
        assertThat(app.publisher().find("reminders", "camel").orElseThrow().lastError())
                .contains("field 'customer_name' is missing");
    }
}
