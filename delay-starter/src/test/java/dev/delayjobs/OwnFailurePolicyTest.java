package dev.delayjobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.FixedBackOff;

import dev.delayjobs.test.Recorder;
import dev.delayjobs.test.RunningApp;

/** An application's {@link JobFailurePolicy} bean decides the retries of its queues, against a real Redis. */
class OwnFailurePolicyTest {

    record Task(String kind) {
    }

    static class Handlers {

        final Recorder calls = new Recorder();

        /** Retries 300 ms apart, twice; a "hopeless" failure is not retried. */
        @Bean
        JobFailurePolicy ownFailurePolicy() {
            return new JobFailurePolicy() {

                @Override
                public boolean isRetryable(String queue, Throwable failure) {
                    if (queue.equals("policy-throws")) {
                        throw new IllegalStateException("a broken policy");
                    }
                    return !failure.getMessage().contains("hopeless");
                }

                @Override
                public BackOff backOff(String queue) {
                    return new FixedBackOff(300, 2);
                }
            };
        }

        @DelayedHandler(queue = "own", maxAttempts = "10", backoffInitial = "10ms")
        void own(DelayedJob<Task> job) {
            calls.record(job.id(), job.dueAt(), job.attempt(), job.payload());
            throw new IllegalStateException(job.payload().kind());
        }

        @DelayedHandler(queue = "policy-throws", maxAttempts = "2", backoffInitial = "10ms")
        void policyThrows(DelayedJob<Task> job) {
            calls.record(job.id(), job.dueAt(), job.attempt(), job.payload());
            throw new IllegalStateException(job.payload().kind());
        }
    }

    @RegisterExtension
    static final RunningApp<Handlers> app = RunningApp.of(Handlers.class);

    @Test
    void theBeansBackOffSpacesTheAttemptsAndItsStopBuriesTheJob() {
        app.publisher().publish("own", new Task("flaky"), Duration.ZERO, "flaky");
        JobInfo dead = awaitDead("flaky");
        assertThat(dead.attempts()).as("two retries, then the backoff stops, below the 10 attempts").isEqualTo(3);
        List<Recorder.Delivery> attempts = app.handlers().calls.deliveries().stream()
                .filter(d -> d.id().equals("flaky")).toList();
        assertThat(Duration.between(attempts.get(0).handledAt(), attempts.get(1).dueAt()))
                .as("the bean's 300 ms, not the annotation's 10 ms").isGreaterThanOrEqualTo(Duration.ofMillis(290));
    }

    @Test
    void theBeansClassifierBuriesAtOnce() {
        app.publisher().publish("own", new Task("hopeless"), Duration.ZERO, "hopeless");
        assertThat(awaitDead("hopeless").attempts()).isEqualTo(1);
    }

    @Test
    void aPolicyThatThrowsLeavesTheJobToTheConfiguredBackoff() {
        app.publisher().publish("policy-throws", new Task("any"), Duration.ZERO, "any");
        assertThat(awaitDead("policy-throws", "any").attempts()).as("retried, then dead after max attempts").isEqualTo(2);
    }

    private static JobInfo awaitDead(String id) {
        return awaitDead("own", id);
    }

    private static JobInfo awaitDead(String queue, String id) {
        await().atMost(Duration.ofSeconds(10))
                .until(() -> app.publisher().find(queue, id).map(JobInfo::state).orElse(null) == JobState.DEAD);
        return app.publisher().find(queue, id).orElseThrow();
    }
}
