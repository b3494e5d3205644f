package dev.delayjobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.delayjobs.test.RunningApp;

/**
 * An idle consumer (default settings) waits for ready jobs at most 1 s at a time; a grouped job
 * made ready, and a group whose slot an ack frees, wake it at once (the wake marker, see
 * docs/architecture.md#groups), so a group's job is not up to that second late. Each case first
 * lets the consumer handle a job, so that it is waiting when the next one is published: without
 * the wake the next one waits out most of the second.
 */
class GroupWakeTest {

    /** Far below the 1 s wait the wake saves, far above what a wake costs on a loaded machine. */
    static final long MOST_LATE_MS = 500;

    /** A handled job: its payload and when (System.nanoTime). */
    record Handled(String payload, long at) {
    }

    static final BlockingQueue<Handled> handled = new LinkedBlockingQueue<>();

    static class Handlers {

        @DelayedHandler(queue = "woken", concurrency = "4")
        void woken(DelayedJob<String> job) {
            handled.add(new Handled(job.payload(), System.nanoTime()));
        }

        @DelayedHandler(queue = "one-at-a-time", concurrency = "4")
        void oneAtATime(DelayedJob<String> job) {
            handled.add(new Handled(job.payload(), System.nanoTime()));
        }
    }

    @RegisterExtension
    static final RunningApp<Handlers> app = RunningApp.of(Handlers.class, "delay.queues.one-at-a-time.group-concurrency=1");

    @Test
    void aGroupedJobDueNowIsHandledAtOnceByAnIdleConsumer() throws InterruptedException {
        DelayPublisher publisher = app.publisher();
        handledAfter(publisher, PublishRequest.of("first"), "first", System.nanoTime());
        for (int i = 0; i < 4; i++) {
            long published = System.nanoTime();
            long lateMs = handledAfter(publisher, PublishRequest.of("now-" + i).group("a"), "now-" + i, published);
            assertThat(lateMs).as("now-" + i + " handled within " + MOST_LATE_MS + " ms of its publish").isLessThan(MOST_LATE_MS);
        }
    }

    @Test
    void aGroupedJobDueSoonIsHandledAtOnceWhenTransferred() throws InterruptedException {
        DelayPublisher publisher = app.publisher();
        handledAfter(publisher, PublishRequest.of("first"), "first", System.nanoTime());
        for (int i = 0; i < 3; i++) {
            long due = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
            long lateMs = handledAfter(publisher, PublishRequest.of("soon-" + i).group("a").delay(Duration.ofMillis(200)),
                    "soon-" + i, due);
            assertThat(lateMs).as("soon-" + i + " handled within " + MOST_LATE_MS + " ms of its due time").isLessThan(MOST_LATE_MS);
        }
    }

    @Test
    void aGroupAtItsLimitGetsItsNextJobAsSoonAsTheLastIsAcked() throws InterruptedException {
        DelayPublisher publisher = app.publisher();
        List<PublishRequest> requests = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            requests.add(PublishRequest.of("in-turn-" + i).group("a"));
        }
        publisher.publishAll("one-at-a-time", requests);
        List<Handled> seen = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Handled next = handled.poll(30, TimeUnit.SECONDS);
            assertThat(next).as("job " + i + " of the group handled").isNotNull();
            seen.add(next);
        }
        for (int i = 1; i < seen.size(); i++) {
            long gapMs = TimeUnit.NANOSECONDS.toMillis(seen.get(i).at() - seen.get(i - 1).at());
            assertThat(gapMs).as(seen.get(i).payload() + " handled within " + MOST_LATE_MS + " ms of the one before")
                    .isLessThan(MOST_LATE_MS);
        }
    }

    /** Publishes {@code request} to "woken", waits until its job is handled, and returns how late (ms after {@code from}). */
    private static long handledAfter(DelayPublisher publisher, PublishRequest request, String payload, long from)
            throws InterruptedException {
        publisher.publish("woken", request);
        Handled next = handled.poll(30, TimeUnit.SECONDS);
        assertThat(next).as(payload + " handled").isNotNull();
        assertThat(next.payload()).isEqualTo(payload);
        return TimeUnit.NANOSECONDS.toMillis(next.at() - from);
    }
}
