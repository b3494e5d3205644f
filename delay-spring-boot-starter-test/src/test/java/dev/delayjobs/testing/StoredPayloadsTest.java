package dev.delayjobs.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

import dev.delayjobs.DelayedHandler;
import dev.delayjobs.PayloadUpcaster;
import dev.delayjobs.PayloadVersion;
import tools.jackson.databind.node.ObjectNode;

/**
 * An upcaster tested against real old payloads: examples kept as JSON files in the test resources
 * are stored at their version and handled by today's handler, and each is asserted to still bind.
 */
@SpringBootTest
@EmbeddedRedis
class StoredPayloadsTest {

    @PayloadVersion(2)
    record Reminder(long orderId, String firstName, String lastName) {
    }

    static class Reminders {

        final Set<Reminder> sent = ConcurrentHashMap.newKeySet();

        @DelayedHandler(queue = "reminders")
        void send(Reminder reminder) {
            sent.add(reminder);
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Reminders.class)
    static class App {

        @Bean
        PayloadUpcaster splitName() {
            return PayloadUpcaster.of(Reminder.class, 1, json -> {
                ObjectNode node = (ObjectNode) json;
                String[] names = node.remove("customer").asString().split(" ", 2);
                return node.put("firstName", names[0]).put("lastName", names[1]);
            });
        }
    }

    @Autowired
    DelayQueueTester tester;

    @Autowired
    Reminders reminders;

    @Test
    void aPayloadStoredByTheLastReleaseIsHandledThroughTheUpcaster() {
        String id = tester.storeExample("reminders", "payloads/reminder/v1.json", 1);
        tester.awaitHandled("reminders", id);
        assertThat(reminders.sent).contains(new Reminder(7, "Ada", "Lovelace"));

        String raw = tester.storePayload("reminders", "{\"orderId\":3,\"customer\":\"Grace Hopper\"}", 1);
        tester.awaitHandled("reminders", raw);
        assertThat(reminders.sent).contains(new Reminder(3, "Grace", "Hopper"));
    }

    @Test
    void everyStoredExampleStillBinds() {
        assertThat(tester.assertExamplesBind(Reminder.class, "payloads/reminder")).isEqualTo(2);
    }

    @Test
    void anExampleThatNoLongerBindsIsNamedWithWhy() {
        assertThatThrownBy(() -> tester.assertExamplesBind(Reminder.class, "payloads/reminder-broken"))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("1 of 1 stored examples no longer bind to Reminder at version 2")
                .hasMessageContaining("v1-no-customer.json: the upcaster of Reminder from version 1 failed");
        assertThatThrownBy(() -> tester.assertExamplesBind(Reminder.class, "payloads/none"))
                .hasMessageContaining("no stored examples");
    }
}
