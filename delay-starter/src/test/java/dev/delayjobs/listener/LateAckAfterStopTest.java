package dev.delayjobs.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.delayjobs.DelayedHandler;
import dev.delayjobs.JobState;
import dev.delayjobs.test.RunningApp;

/**
 * A handler that ignores the shutdown interrupt and returns after {@code stop()}, its interrupt flag
 * still set: its ack is recorded (the job is done), not queued for an acker that has stopped, nor
 * dropped because the wait for a place in the ack queue was interrupted, either of which would
 * leave the job held until its lease ran out and then run it again. The same for a handler that
 * returns with the flag set while the queue runs.
 */
class LateAckAfterStopTest {

    static class Handlers {

        final CountDownLatch started = new CountDownLatch(1);
        final CountDownLatch returned = new CountDownLatch(1);
        final AtomicInteger politeRuns = new AtomicInteger();

        @DelayedHandler(queue = "stubborn")
        void handle(String value) {
            started.countDown();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(6);
            while (System.nanoTime() < until) {
                // ignores the interrupt on purpose (stop() gives up on it after 5 s), and returns with it set
                Thread.onSpinWait();
            }
            returned.countDown();
        }

        /** Restores the interrupt flag, as code that caught an InterruptedException should, and returns. */
        @DelayedHandler(queue = "polite")
        void handlePolitely(String value) {
            politeRuns.incrementAndGet();
            Thread.currentThread().interrupt();
        }
    }

    @RegisterExtension
    static final RunningApp<Handlers> app = RunningApp.of(Handlers.class, "delay.shutdown-timeout=0s");

    @Test
    void theLateHandlersAckIsRecorded() throws InterruptedException {
        String id = app.publisher().publish("stubborn", "work", Duration.ZERO);
        assertThat(app.handlers().started.await(10, TimeUnit.SECONDS)).isTrue();
        ListenerContainer container = app.context().getBean(ListenerContainerRegistry.class).getContainer("stubborn")
                .orElseThrow();
        container.stop();
        assertThat(app.publisher().find("stubborn", id).orElseThrow().state()).as("still running when stop() returns")
                .isEqualTo(JobState.RUNNING);

        assertThat(app.handlers().returned.await(10, TimeUnit.SECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(5)).until(() -> app.publisher().find("stubborn", id).isEmpty());
    }

    @Test
    void aHandlerReturningWithItsInterruptFlagSetIsAckedOnce() {
        String id = app.publisher().publish("polite", "work", Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> app.publisher().find("polite", id).isEmpty());
        assertThat(app.handlers().politeRuns).as("runs of the job").hasValue(1);
    }
}
