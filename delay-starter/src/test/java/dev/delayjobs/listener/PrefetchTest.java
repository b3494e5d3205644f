package dev.delayjobs.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static dev.delayjobs.test.TestPartitions.whole;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import dev.delayjobs.DelayQueueControl;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.JobInfo;
import dev.delayjobs.JobState;
import dev.delayjobs.RateLimit;
import dev.delayjobs.redis.QueueStats;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.test.RunningApp;

/**
 * A consumer with one worker and a prefetch of two, whose handler is held: the jobs waiting in its
 * buffer are PREFETCHED (not RUNNING, no attempt, counted as ready, not cancellable), run in order
 * with their first attempt, and go back to ready at once, unspent, when the container stops or the
 * queue is paused, while the running job goes on.
 */
class PrefetchTest {

    /** A handler that records each start and waits until released. */
    static class HeldHandler {

        final List<String> started = new CopyOnWriteArrayList<>();
        final CountDownLatch release = new CountDownLatch(1);

        void handle(DelayedJob<String> job) throws InterruptedException {
            started.add(job.payload() + "#" + job.attempt());
            release.await(30, TimeUnit.SECONDS);
        }
    }

    static class Handlers {

        final HeldHandler shown = new HeldHandler();
        final HeldHandler stopped = new HeldHandler();
        final HeldHandler paused = new HeldHandler();
        final HeldHandler limited = new HeldHandler();

        @DelayedHandler(queue = "shown")
        void shown(DelayedJob<String> job) throws InterruptedException {
            shown.handle(job);
        }

        @DelayedHandler(queue = "stopped")
        void stopped(DelayedJob<String> job) throws InterruptedException {
            stopped.handle(job);
        }

        @DelayedHandler(queue = "paused")
        void paused(DelayedJob<String> job) throws InterruptedException {
            paused.handle(job);
        }

        @DelayedHandler(queue = "limited")
        void limited(DelayedJob<String> job) throws InterruptedException {
            limited.handle(job);
        }
    }

    @RegisterExtension
    static final RunningApp<Handlers> app = RunningApp.of(Handlers.class, "delay.consumer.concurrency=1",
            "delay.consumer.prefetch=2", "delay.shutdown-timeout=30s");

    @Test
    void jobsWaitingInTheBufferArePrefetchedAndRunInOrderWithTheirFirstAttempt() {
        HeldHandler handler = app.handlers().shown;
        List<String> ids = fillWorkerAndBuffer("shown", handler);

        JobInfo waiting = app.publisher().find("shown", ids.get(1)).orElseThrow();
        assertThat(waiting.attempts()).isZero();
        QueueStats stats = app.context().getBean(RedisJobStore.class).stats(whole("shown"));
        assertThat(stats.running()).isEqualTo(1);
        assertThat(stats.ready()).as("prefetched jobs count as ready").isEqualTo(2);
        assertThat(stats.oldestWaitingDueAt()).isPositive();
        assertThat(app.publisher().cancel("shown", ids.get(2))).as("a consumer has it").isFalse();

        handler.release.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> handler.started.size() == 3);
        assertThat(handler.started).containsExactly("j0#1", "j1#1", "j2#1");
        await().atMost(Duration.ofSeconds(10)).until(() -> ids.stream().allMatch(id -> app.publisher().find("shown", id).isEmpty()));
    }

    @Test
    void stoppingHandsPrefetchedJobsBackAtOnceWhileTheRunningJobFinishes() {
        HeldHandler handler = app.handlers().stopped;
        List<String> ids = fillWorkerAndBuffer("stopped", handler);
        ListenerContainer container = app.context().getBean(ListenerContainerRegistry.class).getContainer("stopped")
                .orElseThrow();

        CompletableFuture<Void> stopping = CompletableFuture.runAsync(container::stop);
        await().atMost(Duration.ofSeconds(5)).until(() -> state("stopped", ids.get(1)) == JobState.READY
                && state("stopped", ids.get(2)) == JobState.READY);
        assertThat(stopping).as("stop() waits for the running handler").isNotDone();
        assertThat(state("stopped", ids.get(0))).isEqualTo(JobState.RUNNING);
        assertThat(app.publisher().find("stopped", ids.get(1)).orElseThrow().attempts()).isZero();

        handler.release.countDown();
        stopping.join();
        assertThat(app.publisher().find("stopped", ids.get(0))).as("acked before stop() returned").isEmpty();
        assertThat(handler.started).containsExactly("j0#1");

        container.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> handler.started.size() == 3);
        assertThat(handler.started).containsExactly("j0#1", "j1#1", "j2#1");
    }

    @Test
    void pausingHandsPrefetchedJobsBackAndResumingRunsThemWithTheirFirstAttempt() {
        HeldHandler handler = app.handlers().paused;
        List<String> ids = fillWorkerAndBuffer("paused", handler);
        DelayQueueControl control = app.context().getBean(DelayQueueControl.class);

        control.pause("paused");
        await().atMost(Duration.ofSeconds(5)).until(() -> state("paused", ids.get(1)) == JobState.READY
                && state("paused", ids.get(2)) == JobState.READY);
        handler.release.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> app.publisher().find("paused", ids.get(0)).isEmpty());
        assertThat(handler.started).containsExactly("j0#1");
        assertThat(state("paused", ids.get(1))).isEqualTo(JobState.READY);

        control.resume("paused");
        await().atMost(Duration.ofSeconds(10)).until(() -> handler.started.size() == 3);
        assertThat(handler.started).containsExactly("j0#1", "j1#1", "j2#1");
    }

    @Test
    void aRateLimitSetAtRuntimeHandsPrefetchedJobsBackSoTheyStartThroughTheRateLog() {
        HeldHandler handler = app.handlers().limited;
        List<String> ids = fillWorkerAndBuffer("limited", handler);
        DelayQueueControl control = app.context().getBean(DelayQueueControl.class);

        // one start a minute: the two buffered jobs must not both start in it
        control.setRateLimit("limited", RateLimit.parse("1/1m"));
        await().atMost(Duration.ofSeconds(5)).until(() -> state("limited", ids.get(1)) == JobState.READY
                && state("limited", ids.get(2)) == JobState.READY);
        assertThat(app.publisher().find("limited", ids.get(1)).orElseThrow().attempts()).isZero();
        handler.release.countDown();

        await().atMost(Duration.ofSeconds(10)).until(() -> handler.started.size() >= 2);
        // every job started since the limit was set went through the rate log, and no more than it allows
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> handler.started.size() == 2);
        assertThat(rateLogSize("limited")).as("starts counted in the window").isEqualTo(1);
        assertThat(handler.started).containsExactly("j0#1", "j1#1");
        assertThat(state("limited", ids.get(2))).isEqualTo(JobState.READY);
        control.setRateLimit("limited", null);
        await().atMost(Duration.ofSeconds(10)).until(() -> handler.started.size() == 3);
    }

    private static int rateLogSize(String queue) {
        RedisJobStore store = app.context().getBean(RedisJobStore.class);
        return app.context().getBean(RedissonClient.class)
                .getScoredSortedSet(store.prefix() + ":{" + queue + "}:rate-log", StringCodec.INSTANCE).size();
    }

    /** Publishes three jobs: the first runs (and is held), the other two wait in the buffer. */
    private static List<String> fillWorkerAndBuffer(String queue, HeldHandler handler) {
        String first = app.publisher().publish(queue, "j0", Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> handler.started.size() == 1);
        List<String> ids = List.of(first, app.publisher().publish(queue, "j1", Duration.ZERO),
                app.publisher().publish(queue, "j2", Duration.ZERO));
        await().atMost(Duration.ofSeconds(10)).until(() -> state(queue, ids.get(1)) == JobState.PREFETCHED
                && state(queue, ids.get(2)) == JobState.PREFETCHED);
        assertThat(state(queue, first)).isEqualTo(JobState.RUNNING);
        return ids;
    }

    private static JobState state(String queue, String id) {
        return app.publisher().find(queue, id).map(JobInfo::state).orElse(null);
    }
}
