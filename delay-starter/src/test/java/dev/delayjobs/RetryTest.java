package dev.delayjobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.delayjobs.test.Recorder;
import dev.delayjobs.test.RunningApp;

/** Failed jobs are retried with backoff, then buried; unreadable ones are buried at once. */
class RetryTest {

    record Receipt(long orderId) {
    }

    static class Handlers {

        final Recorder flaky = new Recorder();
        final Recorder broken = new Recorder();
        final Recorder fatal = new Recorder();
        final Recorder typed = new Recorder();

        @DelayedHandler(queue = "flaky", maxAttempts = "3", backoffInitial = "100ms", backoffMultiplier = "2")
        void flaky(DelayedJob<Receipt> job) {
            flaky.record(job.id(), job.dueAt(), job.attempt(), job.payload());
            if (job.attempt() < 3) {
                throw new IllegalStateException("mail gateway refused attempt " + job.attempt());
            }
        }

        @DelayedHandler(queue = "broken", maxAttempts = "3", backoffInitial = "50ms")
        void broken(DelayedJob<Receipt> job) {
            broken.record(job.id(), job.dueAt(), job.attempt(), job.payload());
            throw new IllegalArgumentException("never works");
        }

        @DelayedHandler(queue = "fatal", maxAttempts = "5", backoffInitial = "50ms")
        void fatal(DelayedJob<Receipt> job) {
            fatal.record(job.id(), job.dueAt(), job.attempt(), job.payload());
            throw new NonRetryableJobException("order " + job.payload().orderId() + " no longer exists");
        }

        @DelayedHandler(queue = "forged", maxAttempts = "1")
        void forged(Receipt receipt) {
            throw new IllegalStateException("boom\n2026-11-24 ERROR fake line\u0007");
        }

        @DelayedHandler(queue = "typed", maxAttempts = "5", backoffInitial = "50ms")
        void typed(Receipt receipt) {
            typed.record(Long.toString(receipt.orderId()), null, 0, receipt);
        }
    }

    @RegisterExtension
    static final RunningApp<Handlers> app = RunningApp.of(Handlers.class, "delay.consumer.backoff.jitter=0");

    @Test
    void failingJobIsRetriedWithBackoffUntilItSucceeds() {
        app.publisher().publish("flaky", new Receipt(1), Duration.ZERO, "receipt-1");
        await().atMost(Duration.ofSeconds(10)).until(() -> app.publisher().find("flaky", "receipt-1").isEmpty()
                && app.handlers().flaky.count("receipt-1") == 3);

        List<Recorder.Delivery> attempts = app.handlers().flaky.deliveries();
        assertThat(attempts).extracting(Recorder.Delivery::attempt).containsExactly(1, 2, 3);
        // backoff 100 ms then 200 ms (no jitter): each retry is due that long after the failure
        assertThat(Duration.between(attempts.get(0).handledAt(), attempts.get(1).dueAt())).isGreaterThanOrEqualTo(Duration.ofMillis(90));
        assertThat(Duration.between(attempts.get(1).handledAt(), attempts.get(2).dueAt())).isGreaterThanOrEqualTo(Duration.ofMillis(190));
        assertThat(attempts.get(1).handledAt()).isAfterOrEqualTo(attempts.get(1).dueAt());
        assertThat(attempts.get(2).handledAt()).isAfterOrEqualTo(attempts.get(2).dueAt());
    }

    @Test
    void jobFailingEveryAttemptEndsDeadWithItsError() {
        app.publisher().publish("broken", new Receipt(2), Duration.ZERO, "receipt-2");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> app.publisher().find("broken", "receipt-2").map(JobInfo::state).orElse(null) == JobState.DEAD);

        JobInfo dead = app.publisher().find("broken", "receipt-2").orElseThrow();
        assertThat(dead.attempts()).isEqualTo(3);
        assertThat(dead.lastError()).isEqualTo("java.lang.IllegalArgumentException: never works");
        assertThat(app.handlers().broken.count("receipt-2")).isEqualTo(3);
    }

    @Test
    void nonRetryableFailureGoesDeadAtOnce() {
        app.publisher().publish("fatal", new Receipt(3), Duration.ZERO, "receipt-3");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> app.publisher().find("fatal", "receipt-3").map(JobInfo::state).orElse(null) == JobState.DEAD);
        assertThat(app.handlers().fatal.count("receipt-3")).isEqualTo(1);
        assertThat(app.publisher().find("fatal", "receipt-3").orElseThrow().lastError()).contains("order 3 no longer exists");
    }

    @Test
    void payloadThatCannotBeReadGoesDeadWithoutRetryAndTheQueueKeepsWorking() {
        app.publisher().publish("typed", Map.of("orderId", "not a number"), Duration.ZERO, "unreadable");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> app.publisher().find("typed", "unreadable").map(JobInfo::state).orElse(null) == JobState.DEAD);
        JobInfo dead = app.publisher().find("typed", "unreadable").orElseThrow();
        assertThat(dead.attempts()).as("no retry").isEqualTo(1);
        assertThat(dead.lastError()).startsWith("payload cannot be read as").contains("Receipt")
                .contains("at $.orderId").doesNotContain("not a number");

        app.publisher().publish("typed", new Receipt(77), Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> app.handlers().typed.count("77") == 1);
        assertThat(app.handlers().typed.total()).isEqualTo(1);
    }

    @Test
    void controlCharactersOfAnErrorAreEscapedSoNoLogLineCanBeForged() {
        app.publisher().publish("forged", new Receipt(9), Duration.ZERO, "forged");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> app.publisher().find("forged", "forged").map(JobInfo::state).orElse(null) == JobState.DEAD);
        assertThat(app.publisher().find("forged", "forged").orElseThrow().lastError())
                .isEqualTo("java.lang.IllegalStateException: boom\\n2026-11-24 ERROR fake line\\u0007");
    }
}
