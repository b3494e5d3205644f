package dev.delayjobs.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.PayloadVersion;
import dev.delayjobs.PublishRequest;
import dev.delayjobs.test.RunningApp;

/**
 * The endpoint tells per queue how many waiting jobs are at each payload version: exact while the
 * queue is small, "at least" from a bounded sample beyond, and cached.
 */
class PayloadVersionCountsTest {

    record ReminderV1(long orderId) {
    }

    @PayloadVersion(2)
    record ReminderV2(long orderId) {
    }

    @PayloadVersion(3)
    record Reminder(String orderId) {
    }

    static class NoHandlers {
    }

    @RegisterExtension
    static final RunningApp<NoHandlers> app = RunningApp.of(NoHandlers.class,
            "management.endpoints.web.exposure.include=delayqueues");

    @Test
    void waitingJobsPerVersionAreCountedExactlyInASmallQueue() {
        DelayPublisher publisher = app.publisher();
        publisher.publish("small", new ReminderV1(1), Duration.ofHours(1));
        publisher.publish("small", new ReminderV1(2), Duration.ZERO); // ready: no consumer takes it
        publisher.publish("small", new ReminderV2(3), Duration.ofDays(30));
        for (int i = 0; i < 3; i++) {
            publisher.publish("small", new Reminder("order-" + i), Duration.ofMinutes(5 + i));
        }
        PayloadVersionsView view = endpoint().queue("small", null, null, null).payloadVersions();
        assertThat(view.exact()).isTrue();
        assertThat(view.waiting()).isEqualTo(6);
        assertThat(view.jobs()).isEqualTo(Map.of(1, 2L, 2, 1L, 3, 3L));

        publisher.publish("small", new ReminderV1(4), Duration.ofHours(1));
        assertThat(endpoint().queue("small", null, null, null).payloadVersions()).as("cached").isEqualTo(view);
    }

    @Test
    void aLargeQueueIsSampledWithinTheBoundAndSaysSo() {
        List<PublishRequest> jobs = new ArrayList<>();
        for (int i = 0; i < 1500; i++) {
            jobs.add(PublishRequest.of(i < 500 ? new ReminderV1(i) : new Reminder("order-" + i))
                    .delay(Duration.ofMinutes(1 + i)));
        }
        app.publisher().publishAll("large", jobs);
        PayloadVersionsView view = endpoint().queue("large", null, null, null).payloadVersions();
        assertThat(view.waiting()).isEqualTo(1500);
        assertThat(view.read()).isEqualTo(1000);
        assertThat(view.exact()).isFalse();
        assertThat(view.jobs().keySet()).containsExactlyInAnyOrder(1, 3);
        assertThat(view.jobs().get(1) + view.jobs().get(3)).isEqualTo(1000);
        assertThat(view.jobs().get(1)).as("the soonest third is at version 1: a sample spread over the due times reads about a third there").isBetween(300L, 370L);
    }

    @Test
    void groupedDelayedJobsAreCountedExactlyAndSampledBeyondTheBound() {
        DelayPublisher publisher = app.publisher();
        for (int i = 0; i < 3; i++) {
            publisher.publish("grouped-small", PublishRequest.of(new ReminderV1(i)).group("g1").delay(Duration.ofHours(1 + i)));
        }
        publisher.publish("grouped-small", PublishRequest.of(new ReminderV2(7)).group("g2").delay(Duration.ofHours(2)));
        publisher.publish("grouped-small", new Reminder("order-9"), Duration.ofHours(3));
        PayloadVersionsView small = endpoint().queue("grouped-small", null, null, null).payloadVersions();
        assertThat(small.exact()).isTrue();
        assertThat(small.jobs()).isEqualTo(Map.of(1, 3L, 2, 1L, 3, 1L));

        // two groups of 750 (version 1 and version 3): 1,000 read, spread over both groups' jobs
        List<PublishRequest> jobs = new ArrayList<>();
        for (int i = 0; i < 1500; i++) {
            jobs.add(PublishRequest.of(i < 750 ? new ReminderV1(i) : new Reminder("order-" + i)).group(i < 750 ? "old" : "new")
                    .delay(Duration.ofMinutes(1 + i)));
        }
        publisher.publishAll("grouped-large", jobs);
        PayloadVersionsView large = endpoint().queue("grouped-large", null, null, null).payloadVersions();
        assertThat(large.waiting()).isEqualTo(1500);
        assertThat(large.read()).isEqualTo(1000);
        assertThat(large.jobs().get(1)).as("half the sample in each group").isEqualTo(500L);
        assertThat(large.jobs().get(3)).isEqualTo(500L);
    }

    private static DelayQueuesEndpoint endpoint() {
        return app.context().getBean(DelayQueuesEndpoint.class);
    }
}
