package dev.delayjobs.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.JobInfo;
import dev.delayjobs.JobState;
import dev.delayjobs.test.Recorder;
import dev.delayjobs.test.RunningApp;

/**
 * Scenario 5, first half: a handler that never returns. The handler timeout interrupts it, frees
 * its worker for other jobs, and counts the attempt as failed: the job is retried, or dead after
 * its last attempt. The abandoned call cannot acknowledge the job when it finally returns.
 */
@Tag("slow")
@Tag("fault")
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class HandlerTimeoutTest {

    static class Handlers {

        final Recorder hangsOnce = new Recorder();
        final CountDownLatch firstCallEntered = new CountDownLatch(1);
        final CountDownLatch releaseFirstCall = new CountDownLatch(1);
        final AtomicInteger interruptsIgnored = new AtomicInteger();
        final AtomicReference<Thread> firstCallThread = new AtomicReference<>();
        final CountDownLatch firstCallReturned = new CountDownLatch(1);
        final CountDownLatch secondCallEntered = new CountDownLatch(1);
        final CountDownLatch releaseSecondCall = new CountDownLatch(1);

        final Recorder alwaysHangs = new Recorder();
        final AtomicInteger alwaysHangsInterrupted = new AtomicInteger();

        /** One worker: another job can only run if the timeout gave the worker back. */
        @DelayedHandler(queue = "hangs-once", concurrency = "1", maxAttempts = "3", backoffInitial = "100ms",
                handlerTimeout = "3s")
        void hangsOnce(DelayedJob<String> job) throws InterruptedException {
            hangsOnce.record(job.id(), job.dueAt(), job.attempt(), job.payload());
            if (!job.id().equals("stuck")) {
                return;
            }
            if (job.attempt() == 1) {
                firstCallThread.set(Thread.currentThread());
                firstCallEntered.countDown();
                // a handler that does not give up when interrupted: it returns only when the test says so
                while (true) {
                    try {
                        if (releaseFirstCall.await(60, TimeUnit.SECONDS)) {
                            firstCallReturned.countDown();
                            return;
                        }
                    }
                    catch (InterruptedException ex) {
                        interruptsIgnored.incrementAndGet();
                    }
                }
            }
            secondCallEntered.countDown();
            releaseSecondCall.await(60, TimeUnit.SECONDS);
        }

        /** Its timeout comes from delay.queues.always-hangs.handler-timeout. */
        @DelayedHandler(queue = "always-hangs", maxAttempts = "2", backoffInitial = "50ms")
        void alwaysHangs(DelayedJob<String> job) throws InterruptedException {
            alwaysHangs.record(job.id(), job.dueAt(), job.attempt(), job.payload());
            try {
                Thread.sleep(60_000);
            }
            catch (InterruptedException ex) {
                alwaysHangsInterrupted.incrementAndGet();
                throw ex;
            }
        }
    }

    @RegisterExtension
    static final RunningApp<Handlers> app = RunningApp.of(Handlers.class, "delay.consumer.backoff.jitter=0",
            "delay.queues.always-hangs.handler-timeout=300ms", "delay.sweep-interval=200ms");

    @AfterAll
    static void stop() {
        app.handlers().releaseFirstCall.countDown();
        app.handlers().releaseSecondCall.countDown();
    }

    @Test
    void handlerThatIgnoresItsTimeoutIsAbandonedItsWorkerFreedAndTheJobRetried() throws InterruptedException {
        app.publisher().publish("hangs-once", "first", Duration.ZERO, "stuck");
        assertThat(app.handlers().firstCallEntered.await(10, TimeUnit.SECONDS)).isTrue();
        long stuckAt = System.nanoTime();
        app.publisher().publish("hangs-once", "second", Duration.ZERO, "other");

        // the only worker was freed: the other job runs, and the stuck job's second attempt starts,
        // while the first call still hangs
        assertThat(app.handlers().secondCallEntered.await(10, TimeUnit.SECONDS)).isTrue();
        long retriedAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stuckAt);
        await().atMost(Duration.ofSeconds(5)).until(() -> app.handlers().hangsOnce.count("other") == 1);
        assertThat(app.handlers().firstCallReturned.getCount()).as("the first call still hangs").isEqualTo(1);
        assertThat(app.handlers().firstCallThread.get().getState()).isEqualTo(Thread.State.TIMED_WAITING);
        assertThat(app.handlers().interruptsIgnored.get()).as("the timeout interrupted the first call").isEqualTo(1);
        JobInfo running = app.publisher().find("hangs-once", "stuck").orElseThrow();
        assertThat(running.state()).isEqualTo(JobState.RUNNING);
        assertThat(running.attempts()).isEqualTo(2);
        assertThat(running.lastError()).isEqualTo("handler timed out after 3s");

        // the abandoned call returns normally now: it must not acknowledge the job of attempt 2
        app.handlers().releaseFirstCall.countDown();
        assertThat(app.handlers().firstCallReturned.await(5, TimeUnit.SECONDS)).isTrue();
        // nothing to await for a write that must not happen: the job stays RUNNING a while after the return
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> app.publisher()
                .find("hangs-once", "stuck").map(JobInfo::state).orElse(null) == JobState.RUNNING);

        app.handlers().releaseSecondCall.countDown();
        await().atMost(Duration.ofSeconds(5)).until(() -> app.publisher().find("hangs-once", "stuck").isEmpty());
        assertThat(app.handlers().hangsOnce.count("stuck")).isEqualTo(2);
        FaultReport.record("handler that ignores its 3 s timeout",
                "attempt 1 interrupted and abandoned; worker freed (another job ran on the only worker); attempt 2 started "
                        + retriedAfterMs + " ms after attempt 1 began; the abandoned call's late return did not ack");
    }

    @Test
    void handlerThatHangsOnEveryAttemptEndsDeadAfterMaxAttempts() {
        long start = System.nanoTime();
        app.publisher().publish("always-hangs", "never finishes", Duration.ZERO, "hopeless");

        await().atMost(Duration.ofSeconds(10))
                .until(() -> app.publisher().find("always-hangs", "hopeless").map(JobInfo::state).orElse(null) == JobState.DEAD);
        long deadAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        JobInfo dead = app.publisher().find("always-hangs", "hopeless").orElseThrow();
        assertThat(dead.attempts()).isEqualTo(2);
        assertThat(dead.lastError()).isEqualTo("handler timed out after 300ms");
        assertThat(app.handlers().alwaysHangs.count("hopeless")).isEqualTo(2);
        await().atMost(Duration.ofSeconds(2)).until(() -> app.handlers().alwaysHangsInterrupted.get() == 2);
        FaultReport.record("handler that hangs on every attempt (timeout 300 ms, max-attempts 2)",
                "dead after " + dead.attempts() + " attempts, " + deadAfterMs + " ms after publish, error '"
                        + dead.lastError() + "'; both calls interrupted");
    }
}
