package dev.delayjobs.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.delayjobs.DelayedHandler;
import dev.delayjobs.JobState;
import dev.delayjobs.test.RunningApp;

/**
 * A handler that ignores the shutdown interrupt and returns after {@code stop()}: its ack is
 * recorded (the job is done), not queued for an acker that has stopped, which would leave the job
 * held until its lease ran out and then run it again.
 */
class LateAckAfterStopTest {

    static class Handlers {

        final CountDownLatch started = new CountDownLatch(1);
        final CountDownLatch returned = new CountDownLatch(1);

        @DelayedHandler(queue = "stubborn")
        void handle(String value) {
            started.countDown();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(6);
            while (System.nanoTime() < until) {
                Thread.interrupted(); // ignores the interrupt on purpose: stop() gives up on it after 5 s
                Thread.onSpinWait();
            }
            returned.countDown();
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
}
