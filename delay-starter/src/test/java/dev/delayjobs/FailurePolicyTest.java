package dev.delayjobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.DateTimeException;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.delayjobs.test.Recorder;
import dev.delayjobs.test.RunningApp;

/**
 * The failure policy built from the properties, against a real Redis: configured exception classes
 * go dead after one attempt, others retry with the configured backoff.
 */
class FailurePolicyTest {

    record Task(String kind) {
    }

    static class Handlers {

        final Recorder classified = new Recorder();
        final Recorder defaults = new Recorder();

        @DelayedHandler(queue = "classified")
        void classified(DelayedJob<Task> job) {
            classified.record(job.id(), job.dueAt(), job.attempt(), job.payload());
            switch (job.payload().kind()) {
                case "invalid" -> throw new IllegalArgumentException("order has no lines");
                case "wrapped" -> throw new IllegalStateException("could not build the mail",
                        new IllegalArgumentException("no address"));
                case "flaky" -> {
                    if (job.attempt() < 3) {
                        throw new IllegalStateException("gateway refused attempt " + job.attempt());
                    }
                }
                default -> throw new AssertionError(job.payload());
            }
        }

        @DelayedHandler(queue = "defaults")
        void defaults(DelayedJob<Task> job) {
            defaults.record(job.id(), job.dueAt(), job.attempt(), job.payload());
            if (job.payload().kind().equals("date")) {
                throw new DateTimeException("no such day");
            }
            throw new IllegalArgumentException("listed for another queue only");
        }
    }

    @RegisterExtension
    static final RunningApp<Handlers> app = RunningApp.of(Handlers.class,
            "delay.consumer.not-retryable-exceptions=java.time.DateTimeException",
            "delay.consumer.backoff.initial=50ms",
            "delay.queues.classified.not-retryable-exceptions=java.lang.IllegalArgumentException",
            "delay.queues.classified.max-attempts=5",
            "delay.queues.classified.backoff.initial=100ms",
            "delay.queues.classified.backoff.multiplier=2",
            "delay.queues.classified.backoff.jitter=0");

    @Test
    void configuredExceptionGoesDeadAfterOneAttempt() {
        app.publisher().publish("classified", new Task("invalid"), Duration.ZERO, "invalid");
        JobInfo dead = awaitDead("classified", "invalid");
        assertThat(dead.attempts()).isEqualTo(1);
        assertThat(dead.lastError()).isEqualTo("java.lang.IllegalArgumentException: order has no lines");
        assertThat(app.handlers().classified.count("invalid")).isEqualTo(1);
    }

    @Test
    void configuredExceptionAsTheCauseGoesDeadAfterOneAttempt() {
        app.publisher().publish("classified", new Task("wrapped"), Duration.ZERO, "wrapped");
        JobInfo dead = awaitDead("classified", "wrapped");
        assertThat(dead.attempts()).isEqualTo(1);
        assertThat(dead.lastError()).isEqualTo("java.lang.IllegalStateException: could not build the mail");
    }

    @Test
    void otherFailuresRetryWithTheConfiguredBackoff() {
        app.publisher().publish("classified", new Task("flaky"), Duration.ZERO, "flaky");
        await().atMost(Duration.ofSeconds(10)).until(() -> app.publisher().find("classified", "flaky").isEmpty()
                && app.handlers().classified.count("flaky") == 3);
        List<Recorder.Delivery> attempts = app.handlers().classified.deliveries().stream()
                .filter(d -> d.id().equals("flaky")).toList();
        assertThat(attempts).extracting(Recorder.Delivery::attempt).containsExactly(1, 2, 3);
        // 100 ms then 200 ms (no jitter): each retry is due that long after the failure
        assertThat(Duration.between(attempts.get(0).handledAt(), attempts.get(1).dueAt()))
                .isGreaterThanOrEqualTo(Duration.ofMillis(90));
        assertThat(Duration.between(attempts.get(1).handledAt(), attempts.get(2).dueAt()))
                .isGreaterThanOrEqualTo(Duration.ofMillis(190));
    }

    @Test
    void aQueueListReplacesTheDefaultList() {
        app.publisher().publish("defaults", new Task("date"), Duration.ZERO, "date");
        assertThat(awaitDead("defaults", "date").attempts()).as("listed in delay.consumer").isEqualTo(1);

        app.publisher().publish("defaults", new Task("argument"), Duration.ZERO, "argument");
        assertThat(awaitDead("defaults", "argument").attempts()).as("listed for another queue: retried until max attempts")
                .isEqualTo(3);
    }

    private static JobInfo awaitDead(String queue, String id) {
        await().atMost(Duration.ofSeconds(10))
                .until(() -> app.publisher().find(queue, id).map(JobInfo::state).orElse(null) == JobState.DEAD);
        return app.publisher().find(queue, id).orElseThrow();
    }
}
