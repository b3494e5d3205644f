package dev.delayjobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.delayjobs.test.RunningApp;

/**
 * A keyed publish that arrives while the handler of that key's job runs: the caller's new intent (a
 * new payload, a new due time) is handled after the run, not dropped when the run is acked.
 */
class KeyedPublishWhileRunningTest {

    static class Handlers {

        final List<String> handled = new CopyOnWriteArrayList<>();
        final CountDownLatch firstStarted = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final CountDownLatch failingStarted = new CountDownLatch(1);
        final CountDownLatch failingRelease = new CountDownLatch(1);

        @DelayedHandler(queue = "reminders")
        void handle(String reminder) throws InterruptedException {
            if (reminder.equals("today")) {
                firstStarted.countDown();
                release.await(10, TimeUnit.SECONDS);
            }
            handled.add(reminder);
        }

        @DelayedHandler(queue = "failing-reminders", maxAttempts = "2")
        void failOnce(String reminder) throws InterruptedException {
            if (reminder.equals("today")) {
                failingStarted.countDown();
                failingRelease.await(10, TimeUnit.SECONDS);
                throw new IllegalStateException("today's reminder failed");
            }
            handled.add(reminder);
        }
    }

    @RegisterExtension
    static final RunningApp<Handlers> app = RunningApp.of(Handlers.class);

    @Test
    void aPublishWithTheKeyOfARunningJobRunsAfterIt() throws InterruptedException {
        DelayPublisher publisher = app.publisher();
        publisher.publish("reminders", "today", Duration.ZERO, "user-7");
        assertThat(app.handlers().firstStarted.await(10, TimeUnit.SECONDS)).isTrue();

        publisher.publish("reminders", "tomorrow", Duration.ofMillis(300), "user-7");
        JobInfo running = publisher.find("reminders", "user-7").orElseThrow();
        assertThat(running.state()).isEqualTo(JobState.RUNNING);
        assertThat(running.successor()).isNotNull();
        assertThat(running.successor().payloadJson()).isEqualTo("\"tomorrow\"");
        app.handlers().release.countDown();

        await().atMost(Duration.ofSeconds(10)).until(() -> app.handlers().handled.contains("tomorrow"));
        assertThat(app.handlers().handled).containsExactly("today", "tomorrow");
        await().atMost(Duration.ofSeconds(5)).until(() -> publisher.find("reminders", "user-7").isEmpty());
    }

    @Test
    void aReplacingPublishWithTheKeyOfARunningJobReplacesItWhenTheRunFails() throws InterruptedException {
        DelayPublisher publisher = app.publisher();
        publisher.publish("failing-reminders", "today", Duration.ZERO, "user-8");
        assertThat(app.handlers().failingStarted.await(10, TimeUnit.SECONDS)).isTrue();

        publisher.publish("failing-reminders", PublishRequest.of("corrected").key("user-8").replaceExisting());
        assertThat(publisher.find("failing-reminders", "user-8").orElseThrow().successor().replacesJob()).isTrue();
        app.handlers().failingRelease.countDown();

        await().atMost(Duration.ofSeconds(10)).until(() -> app.handlers().handled.contains("corrected"));
        await().atMost(Duration.ofSeconds(5)).until(() -> publisher.find("failing-reminders", "user-8").isEmpty());
    }
}
