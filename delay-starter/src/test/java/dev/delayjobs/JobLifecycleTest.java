package dev.delayjobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.listener.ListenerContainerRegistry;
import dev.delayjobs.test.Recorder;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

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

    static ConfigurableApplicationContext context;
    static Handlers handlers;
    static DelayPublisher publisher;

    @BeforeAll
    static void start() {
        context = TestApps.run(TestRedis.uniquePrefix(), List.of(Handlers.class));
        handlers = context.getBean(Handlers.class);
        publisher = context.getBean(DelayPublisher.class);
    }

    @AfterAll
    static void stop() {
        handlers.release.countDown();
        context.close();
    }

    @Test
    void delayedJobCanBeFoundRescheduledAndCancelled() {
        Instant due = Instant.now().plus(Duration.ofHours(1));
        publisher.publishAt("parked", new Note("later"), due, "d-1");

        JobInfo info = publisher.find("parked", "d-1").orElseThrow();
        assertThat(info.state()).isEqualTo(JobState.DELAYED);
        assertThat(info.dueAt()).isEqualTo(Instant.ofEpochMilli(due.toEpochMilli()));
        assertThat(info.attempts()).isZero();
        assertThat(info.lastError()).isNull();
        assertThat(info.payloadJson()).contains("later");

        Instant later = due.plus(Duration.ofHours(1));
        assertThat(publisher.reschedule("parked", "d-1", later)).isTrue();
        assertThat(publisher.find("parked", "d-1").orElseThrow().dueAt()).isEqualTo(Instant.ofEpochMilli(later.toEpochMilli()));

        assertThat(publisher.cancel("parked", "d-1")).isTrue();
        assertThat(publisher.find("parked", "d-1")).isEmpty();
        assertThat(publisher.cancel("parked", "d-1")).as("second cancel").isFalse();
        assertThat(publisher.reschedule("parked", "d-1", Duration.ofMinutes(1))).as("reschedule of a cancelled job").isFalse();
    }

    @Test
    void readyJobCanBeRescheduledAndCancelledAndACancelledReadyJobIsNeverDelivered() {
        publisher.publish("parked", new Note("now"), Duration.ZERO, "r-1");
        publisher.publish("parked", new Note("now too"), Duration.ZERO, "r-2");
        assertThat(publisher.find("parked", "r-1").orElseThrow().state()).isEqualTo(JobState.READY);

        assertThat(publisher.reschedule("parked", "r-1", Duration.ofHours(1))).isTrue();
        assertThat(publisher.find("parked", "r-1").orElseThrow().state()).isEqualTo(JobState.DELAYED);
        assertThat(publisher.reschedule("parked", "r-1", Duration.ZERO)).isTrue();
        assertThat(publisher.find("parked", "r-1").orElseThrow().state()).isEqualTo(JobState.READY);

        assertThat(publisher.cancel("parked", "r-2")).isTrue();
        assertThat(publisher.find("parked", "r-2")).isEmpty();

        context.getBean(ListenerContainerRegistry.class).getContainer("parked").orElseThrow().start();
        await().atMost(Duration.ofSeconds(10)).until(() -> handlers.parked.count("r-1") == 1);
        // r-1 went ready -> delayed -> ready (two ids in the ready list) and is still handled once
        publisher.publish("parked", new Note("marker"), Duration.ZERO, "r-marker");
        await().atMost(Duration.ofSeconds(10)).until(() -> handlers.parked.count("r-marker") == 1);
        assertThat(handlers.parked.count("r-1")).isEqualTo(1);
        assertThat(handlers.parked.count("r-2")).as("cancelled while ready").isZero();
    }

    @Test
    void runningJobIsReportedAndCannotBeCancelledOrRescheduled() {
        publisher.publish("blocking", new Note("slow"), Duration.ZERO, "run-1");
        await().atMost(Duration.ofSeconds(10)).until(() -> handlers.blocking.count("run-1") == 1);

        JobInfo info = publisher.find("blocking", "run-1").orElseThrow();
        assertThat(info.state()).isEqualTo(JobState.RUNNING);
        assertThat(info.attempts()).isEqualTo(1);
        assertThat(publisher.cancel("blocking", "run-1")).isFalse();
        assertThat(publisher.reschedule("blocking", "run-1", Duration.ofMinutes(5))).isFalse();
        assertThat(publisher.publish("blocking", PublishRequest.of(new Note("replacement")).key("run-1").replaceExisting()))
                .isEqualTo("run-1");
        assertThat(publisher.find("blocking", "run-1").orElseThrow().payloadJson())
                .as("a running job is never replaced").contains("slow");

        handlers.release.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> publisher.find("blocking", "run-1").isEmpty());
        assertThat(handlers.blocking.count("run-1")).isEqualTo(1);
    }

    @Test
    void deadJobKeepsItsErrorUntilReplaced() {
        publisher.publish("failing", new Note("order 9"), Duration.ZERO, "dead-1");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> publisher.find("failing", "dead-1").map(JobInfo::state).orElse(null) == JobState.DEAD);

        JobInfo dead = publisher.find("failing", "dead-1").orElseThrow();
        assertThat(dead.attempts()).isEqualTo(1);
        assertThat(dead.lastError()).contains("IllegalStateException").contains("gateway down for order 9");
        assertThat(publisher.cancel("failing", "dead-1")).isFalse();
        assertThat(publisher.reschedule("failing", "dead-1", Duration.ZERO)).isFalse();

        assertThat(publisher.publish("failing", new Note("again"), Duration.ofHours(1), "dead-1")).isEqualTo("dead-1");
        assertThat(publisher.find("failing", "dead-1").orElseThrow().state()).as("kept").isEqualTo(JobState.DEAD);

        publisher.publish("failing", PublishRequest.of(new Note("again")).delay(Duration.ofHours(1)).key("dead-1").replaceExisting());
        JobInfo replaced = publisher.find("failing", "dead-1").orElseThrow();
        assertThat(replaced.state()).isEqualTo(JobState.DELAYED);
        assertThat(replaced.attempts()).isZero();
        assertThat(replaced.lastError()).isNull();
        assertThat(replaced.payloadJson()).contains("again");
    }

    @Test
    void unknownJobIsNotFound() {
        assertThat(publisher.find("parked", "no-such-job")).isEmpty();
        assertThat(publisher.cancel("parked", "no-such-job")).isFalse();
        assertThat(publisher.reschedule("parked", "no-such-job", Duration.ZERO)).isFalse();
    }
}
