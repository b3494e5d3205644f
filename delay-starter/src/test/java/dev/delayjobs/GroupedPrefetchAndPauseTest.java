package dev.delayjobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/**
 * Groups with a consumer's prefetch buffer and with pause: a job waiting in a buffer holds a slot
 * of its group's {@code group-concurrency} as a running one does, and a paused queue starts no job
 * of any group until it is resumed.
 */
class GroupedPrefetchAndPauseTest {

    static final String QUEUE = "grouped-buffered";
    static final String OTHER = "ungrouped-beside";
    static final Queue<String> started = new ConcurrentLinkedQueue<>();
    static volatile CountDownLatch release = new CountDownLatch(0);

    static class Handlers {

        @DelayedHandler(queue = QUEUE)
        void grouped(DelayedJob<String> job) throws InterruptedException {
            started.add(job.payload());
            release.await(30, TimeUnit.SECONDS);
        }

        @DelayedHandler(queue = OTHER)
        void other(DelayedJob<String> job) {
            started.add(job.payload());
        }
    }

    @Test
    void aBufferedJobHoldsItsGroupsSlotAndAPausedQueueStartsNoGroupsJob() {
        started.clear();
        release = new CountDownLatch(1);
        String[] props = { "delay.queues." + QUEUE + ".group-concurrency=2", "delay.queues." + QUEUE + ".concurrency=1",
                "delay.queues." + QUEUE + ".prefetch=4" };
        try (ConfigurableApplicationContext app = TestApps.run(TestRedis.uniquePrefix(), List.of(Handlers.class), props)) {
            DelayPublisher publisher = app.getBean(DelayPublisher.class);
            publisher.publishAll(QUEUE, List.of(PublishRequest.of("a1").key("a1").group("a"),
                    PublishRequest.of("a2").key("a2").group("a"), PublishRequest.of("a3").key("a3").group("a"),
                    PublishRequest.of("b1").key("b1").group("b")));
            // the one worker runs a1 and blocks; a2 and b1 wait in the buffer
            await().atMost(Duration.ofSeconds(20)).until(() -> state(publisher, "a2") == JobState.PREFETCHED
                    && state(publisher, "b1") == JobState.PREFETCHED);
            assertThat(started).containsExactly("a1");
            // a claim after that, with room left in the buffer (3 of 4): b2 is taken, a3 is not
            publisher.publish(QUEUE, PublishRequest.of("b2").key("b2").group("b"));
            await().atMost(Duration.ofSeconds(20)).until(() -> state(publisher, "b2") == JobState.PREFETCHED);
            assertThat(state(publisher, "a3")).as("group a holds 2 (a1 running, a2 buffered): at its limit").isEqualTo(JobState.READY);

            release.countDown();
            await().atMost(Duration.ofSeconds(20)).until(() -> started.size() == 5);
            assertThat(started).containsExactlyInAnyOrder("a1", "a2", "a3", "b1", "b2");
        }
    }

    @Test
    void aPausedQueueStartsNoJobOfAnyGroupUntilResumed() {
        started.clear();
        release = new CountDownLatch(0);
        String[] props = { "delay.queues." + QUEUE + ".group-concurrency=1" };
        try (ConfigurableApplicationContext app = TestApps.run(TestRedis.uniquePrefix(), List.of(Handlers.class), props)) {
            DelayPublisher publisher = app.getBean(DelayPublisher.class);
            DelayQueueControl control = app.getBean(DelayQueueControl.class);
            assertThat(control.pause(QUEUE)).isTrue();
            publisher.publishAll(QUEUE, List.of(PublishRequest.of("a1").key("a1").group("a"),
                    PublishRequest.of("b1").key("b1").group("b"), PublishRequest.of("n1").key("n1")));
            // the consumers are at work: a job of another queue, published after, is handled
            publisher.publish(OTHER, PublishRequest.of("other").key("other"));
            await().atMost(Duration.ofSeconds(20)).until(() -> started.contains("other"));
            assertThat(started).containsExactly("other");
            assertThat(List.of(state(publisher, "a1"), state(publisher, "b1"), state(publisher, "n1")))
                    .containsOnly(JobState.READY);

            assertThat(control.resume(QUEUE)).isTrue();
            await().atMost(Duration.ofSeconds(20)).until(() -> started.size() == 4);
            assertThat(started).containsExactlyInAnyOrder("other", "a1", "b1", "n1");
        }
    }

    private static JobState state(DelayPublisher publisher, String id) {
        return publisher.find(QUEUE, id).map(JobInfo::state).orElse(null);
    }
}
