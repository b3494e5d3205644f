package dev.delayjobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.delayjobs.listener.ListenerContainerRegistry;
import dev.delayjobs.test.Recorder;
import dev.delayjobs.test.RunningApp;

/** find, cancel and reschedule in every state a job can be in. */
class JobLifecycleTest {

    record Note(String text) {
    }

    static class Handlers {

        final Recorder parked = new Recorder();
        final Recorder blocking = new Recorder();
        final CountDownLatch release = new CountDownLatch(1);

        @DelayedHandler(queue = "parked", autoStartup = "false")
        void parked(DelayedJob<Note> job) {
            parked.record(job.id(), job.dueAt(), job.attempt(), job.payload());
        }

        @DelayedHandler(queue = "blocking")
        void blocking(DelayedJob<Note> job) throws InterruptedException {
            blocking.record(job.id(), job.dueAt(), job.attempt(), job.payload());
            release.await(30, TimeUnit.SECONDS);
        }

        @DelayedHandler(queue = "failing", maxAttempts = "1")
        void failing(Note note) {
            throw new IllegalStateException("gateway down for " + note.text());
        }
    }

    @RegisterExtension
    static final RunningApp<Handlers> app = RunningApp.of(Handlers.class);

    @AfterAll
    static void stop() {
        app.handlers().release.countDown();
    }

    @Test
    void delayedJobCanBeFoundRescheduledAndCancelled() {
        Instant due = Instant.now().plus(Duration.ofHours(1));
        app.publisher().publishAt("parked", new Note("later"), due, "d-1");

        JobInfo info = app.publisher().find("parked", "d-1").orElseThrow();
        assertThat(info.state()).isEqualTo(JobState.DELAYED);
        assertThat(info.dueAt()).isEqualTo(Instant.ofEpochMilli(due.toEpochMilli()));
        assertThat(info.attempts()).isZero();
        assertThat(info.lastError()).isNull();
        assertThat(info.payloadJson()).contains("later");

        Instant later = due.plus(Duration.ofHours(1));
        assertThat(app.publisher().reschedule("parked", "d-1", later)).isTrue();
        assertThat(app.publisher().find("parked", "d-1").orElseThrow().dueAt()).isEqualTo(Instant.ofEpochMilli(later.toEpochMilli()));

        assertThat(app.publisher().cancel("parked", "d-1")).isTrue();
        assertThat(app.publisher().find("parked", "d-1")).isEmpty();
        assertThat(app.publisher().cancel("parked", "d-1")).as("second cancel").isFalse();
        assertThat(app.publisher().reschedule("parked", "d-1", Duration.ofMinutes(1))).as("reschedule of a cancelled job").isFalse();
    }

    @Test
    void readyJobCanBeRescheduledAndCancelledAndACancelledReadyJobIsNeverDelivered() {
        app.publisher().publish("parked", new Note("now"), Duration.ZERO, "r-1");
        app.publisher().publish("parked", new Note("now too"), Duration.ZERO, "r-2");
        assertThat(app.publisher().find("parked", "r-1").orElseThrow().state()).isEqualTo(JobState.READY);

        assertThat(app.publisher().reschedule("parked", "r-1", Duration.ofHours(1))).isTrue();
        assertThat(app.publisher().find("parked", "r-1").orElseThrow().state()).isEqualTo(JobState.DELAYED);
        assertThat(app.publisher().reschedule("parked", "r-1", Duration.ZERO)).isTrue();
        assertThat(app.publisher().find("parked", "r-1").orElseThrow().state()).isEqualTo(JobState.READY);

        assertThat(app.publisher().cancel("parked", "r-2")).isTrue();
        assertThat(app.publisher().find("parked", "r-2")).isEmpty();

        app.context().getBean(ListenerContainerRegistry.class).getContainer("parked").orElseThrow().start();
        await().atMost(Duration.ofSeconds(10)).until(() -> app.handlers().parked.count("r-1") == 1);
        // r-1 went ready -> delayed -> ready (two ids in the ready list) and is still handled once
        app.publisher().publish("parked", new Note("marker"), Duration.ZERO, "r-marker");
        await().atMost(Duration.ofSeconds(10)).until(() -> app.handlers().parked.count("r-marker") == 1);
        assertThat(app.handlers().parked.count("r-1")).isEqualTo(1);
        assertThat(app.handlers().parked.count("r-2")).as("cancelled while ready").isZero();
    }

    @Test
    void runningJobIsReportedAndCannotBeCancelledOrRescheduled() {
        app.publisher().publish("blocking", new Note("slow"), Duration.ZERO, "run-1");
        await().atMost(Duration.ofSeconds(10)).until(() -> app.handlers().blocking.count("run-1") == 1);

        JobInfo info = app.publisher().find("blocking", "run-1").orElseThrow();
        assertThat(info.state()).isEqualTo(JobState.RUNNING);
        assertThat(info.attempts()).isEqualTo(1);
        assertThat(app.publisher().cancel("blocking", "run-1")).isFalse();
        assertThat(app.publisher().reschedule("blocking", "run-1", Duration.ofMinutes(5))).isFalse();
        assertThat(app.publisher().publish("blocking", PublishRequest.of(new Note("replacement")).key("run-1").replaceExisting()))
                .isEqualTo("run-1");
        JobInfo held = app.publisher().find("blocking", "run-1").orElseThrow();
        assertThat(held.payloadJson()).as("a running job is never replaced while it runs").contains("slow");
        assertThat(held.successor().payloadJson()).as("the publish waits as its successor").contains("replacement");

        app.handlers().release.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> app.publisher().find("blocking", "run-1").isEmpty());
        assertThat(app.handlers().blocking.count("run-1")).as("the run, then its successor").isEqualTo(2);
    }

    @Test
    void deadJobKeepsItsErrorUntilReplaced() {
        app.publisher().publish("failing", new Note("order 9"), Duration.ZERO, "dead-1");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> app.publisher().find("failing", "dead-1").map(JobInfo::state).orElse(null) == JobState.DEAD);

        JobInfo dead = app.publisher().find("failing", "dead-1").orElseThrow();
        assertThat(dead.attempts()).isEqualTo(1);
        assertThat(dead.lastError()).contains("IllegalStateException").contains("gateway down for order 9");
        assertThat(app.publisher().cancel("failing", "dead-1")).isFalse();
        assertThat(app.publisher().reschedule("failing", "dead-1", Duration.ZERO)).isFalse();

        assertThat(app.publisher().publish("failing", new Note("again"), Duration.ofHours(1), "dead-1")).isEqualTo("dead-1");
        assertThat(app.publisher().find("failing", "dead-1").orElseThrow().state()).as("kept").isEqualTo(JobState.DEAD);

        app.publisher().publish("failing", PublishRequest.of(new Note("again")).delay(Duration.ofHours(1)).key("dead-1").replaceExisting());
        JobInfo replaced = app.publisher().find("failing", "dead-1").orElseThrow();
        assertThat(replaced.state()).isEqualTo(JobState.DELAYED);
        assertThat(replaced.attempts()).isZero();
        assertThat(replaced.lastError()).isNull();
        assertThat(replaced.payloadJson()).contains("again");
    }

    @Test
    void unknownJobIsNotFound() {
        assertThat(app.publisher().find("parked", "no-such-job")).isEmpty();
        assertThat(app.publisher().cancel("parked", "no-such-job")).isFalse();
        assertThat(app.publisher().reschedule("parked", "no-such-job", Duration.ZERO)).isFalse();
    }
}
