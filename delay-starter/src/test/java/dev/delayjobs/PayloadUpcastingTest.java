package dev.delayjobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.delayjobs.actuate.DelayQueuesEndpoint;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;
import tools.jackson.databind.node.ObjectNode;

/**
 * Jobs outlive deploys: payloads published by older releases of a type (versions 1 and 2) are
 * brought up to the handler's version 3 by two upcasters; a job of a newer release goes to the
 * dead set after one attempt, naming the versions, and runs once it is requeued on the release
 * that knows its version.
 */
class PayloadUpcastingTest {

    /** Version 1, as last year's release published it: a name in one field. */
    record ReminderV1(long orderId, String customer) {
    }

    /** Version 2: the name split in two. */
    @PayloadVersion(2)
    record ReminderV2(long orderId, String firstName, String lastName) {
    }

    /** Version 3, today's: the order id became text. */
    @PayloadVersion(3)
    record Reminder(String orderId, String firstName, String lastName) {
    }

    /** Version 4, of a release not deployed yet here: a channel added. */
    @PayloadVersion(4)
    record ReminderV4(String orderId, String firstName, String lastName, String channel) {
    }

    @Configuration(proxyBeanMethods = false)
    static class Release3 {

        final List<DelayedJob<Reminder>> handled = new CopyOnWriteArrayList<>();

        @DelayedHandler(queue = "reminders", maxAttempts = "5")
        void remind(DelayedJob<Reminder> job) {
            handled.add(job);
        }

        @Bean
        PayloadUpcaster splitName() {
            return PayloadUpcaster.of(Reminder.class, 1, json -> {
                ObjectNode node = (ObjectNode) json;
                String[] names = node.remove("customer").asString().split(" ", 2);
                return node.put("firstName", names[0]).put("lastName", names.length > 1 ? names[1] : "");
            });
        }

        @Bean
        PayloadUpcaster orderIdAsText() {
            return PayloadUpcaster.of(Reminder.class, 2, json -> {
                ObjectNode node = (ObjectNode) json;
                return node.put("orderId", "order-" + node.get("orderId").asLong());
            });
        }
    }

    /** The release after: the handler reads version 4, with one more upcaster. */
    @Configuration(proxyBeanMethods = false)
    static class Release4 {

        final List<DelayedJob<ReminderV4>> handled = new CopyOnWriteArrayList<>();

        @DelayedHandler(queue = "reminders")
        void remind(DelayedJob<ReminderV4> job) {
            handled.add(job);
        }

        @Bean
        PayloadUpcaster toV4From1() {
            return PayloadUpcaster.of(ReminderV4.class, 1, json -> json);
        }

        @Bean
        PayloadUpcaster toV4From2() {
            return PayloadUpcaster.of(ReminderV4.class, 2, json -> json);
        }

        @Bean
        PayloadUpcaster addChannel() {
            return PayloadUpcaster.of(ReminderV4.class, 3, json -> ((ObjectNode) json).put("channel", "mail"));
        }
    }

    @Test
    void versionsOneAndTwoReachAVersionThreeHandlerThroughTwoUpcasters() {
        try (ConfigurableApplicationContext app = TestApps.run(TestRedis.uniquePrefix(), List.of(Release3.class))) {
            DelayPublisher publisher = app.getBean(DelayPublisher.class);
            publisher.publish("reminders", new ReminderV1(7, "Ada Lovelace"), Duration.ZERO, "v1");
            publisher.publish("reminders", new ReminderV2(8, "Alan", "Turing"), Duration.ofHours(1), "v2");
            publisher.publish("reminders", Map.of("orderId", 9, "customer", "Grace Hopper"), Duration.ofHours(1), "map");
            assertThat(publisher.find("reminders", "v2").orElseThrow().payloadVersion()).isEqualTo(2);
            assertThat(publisher.find("reminders", "map").orElseThrow().payloadVersion())
                    .as("a type without @PayloadVersion is version 1").isEqualTo(1);
            publisher.reschedule("reminders", "v2", Duration.ZERO);
            publisher.cancel("reminders", "map");

            Release3 handlers = app.getBean(Release3.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> handlers.handled.size() == 2);
            assertThat(handlers.handled).extracting(DelayedJob::payload).containsExactlyInAnyOrder(
                    new Reminder("order-7", "Ada", "Lovelace"), new Reminder("order-8", "Alan", "Turing"));
            assertThat(handlers.handled).extracting(DelayedJob::payloadVersion).containsExactlyInAnyOrder(1, 2);
        }
    }

    @Test
    void aJobOfANewerReleaseGoesDeadNamingTheVersionsAndRunsWhenRequeuedAfterTheUpgrade() {
        String prefix = TestRedis.uniquePrefix();
        try (ConfigurableApplicationContext release3 = TestApps.run(prefix, List.of(Release3.class))) {
            DelayPublisher publisher = release3.getBean(DelayPublisher.class);
            publisher.publish("reminders", new ReminderV4("order-1", "Ada", "Lovelace", "sms"), Duration.ZERO, "from-v4");
            await().atMost(Duration.ofSeconds(10)).until(() -> publisher.find("reminders", "from-v4")
                    .map(JobInfo::state).orElse(null) == JobState.DEAD);
            JobInfo dead = publisher.find("reminders", "from-v4").orElseThrow();
            assertThat(dead.attempts()).as("reading again would fail again: no retry").isEqualTo(1);
            assertThat(dead.payloadVersion()).isEqualTo(4);
            assertThat(dead.lastError()).contains("payload version 4 of Reminder is newer than the version this handler"
                    + " reads (3)");
            assertThat(release3.getBean(Release3.class).handled).isEmpty();
        }
        try (ConfigurableApplicationContext release4 = TestApps.run(prefix, List.of(Release4.class),
                "management.endpoints.web.exposure.include=delayqueues")) {
            assertThat(release4.getBean(DelayQueuesEndpoint.class).act("reminders", "requeue-dead", "from-v4", null, null)
                    .affected()).isEqualTo(1);
            Release4 handlers = release4.getBean(Release4.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> handlers.handled.size() == 1);
            assertThat(handlers.handled.get(0).payload()).isEqualTo(new ReminderV4("order-1", "Ada", "Lovelace", "sms"));
            assertThat(handlers.handled.get(0).payloadVersion()).isEqualTo(4);
        }
    }
}
