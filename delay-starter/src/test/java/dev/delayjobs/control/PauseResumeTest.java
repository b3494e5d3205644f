package dev.delayjobs.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static dev.delayjobs.test.TestPartitions.whole;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayQueueControl;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.PublishRequest;
import dev.delayjobs.actuate.DelayQueuesHealthIndicator;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.test.Recorder;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;
import io.micrometer.core.instrument.MeterRegistry;

/** Pausing a queue stops every instance from claiming it; resuming lets them all go on. */
@Tag("slow")
@Tag("timing")
class PauseResumeTest {

    /** What all instances of one test share: the job that blocks, and when it may go on. */
    static final class Slow {
        static volatile CountDownLatch started = new CountDownLatch(1);
        static volatile CountDownLatch release = new CountDownLatch(1);
    }

    static class Handler {

        final Recorder recorder = new Recorder();

        @DelayedHandler(queue = "pausable", concurrency = "2")
        void handle(DelayedJob<String> job) throws InterruptedException {
            if (job.payload().equals("slow")) {
                Slow.started.countDown();
                assertThat(Slow.release.await(30, TimeUnit.SECONDS)).isTrue();
            }
            recorder.record(job.id(), job.dueAt(), job.attempt(), job.payload());
        }
    }

    static class FreshQueueHandler {

        final Recorder recorder = new Recorder();

        @DelayedHandler(queue = "held-until-released")
        void handle(DelayedJob<String> job) {
            recorder.record(job.id(), job.dueAt(), job.attempt(), job.payload());
        }
    }

    @Test
    void pausedQueueIsNotConsumedByAnyInstanceWhileRunningJobsFinishAndPublishesGoOn() throws InterruptedException {
        Slow.started = new CountDownLatch(1);
        Slow.release = new CountDownLatch(1);
        String prefix = TestRedis.uniquePrefix();
        String[] properties = { "delay.health.overdue-threshold=100ms", "delay.health.cache-ttl=0ms",
                "delay.metrics.gauge-cache-ttl=0ms" };
        try (ConfigurableApplicationContext first = TestApps.run(prefix, List.of(Handler.class), properties);
                ConfigurableApplicationContext second = TestApps.run(prefix, List.of(Handler.class), properties);
                ConfigurableApplicationContext third = TestApps.run(prefix, List.of(Handler.class), properties)) {
            List<Recorder> recorders = List.of(first.getBean(Handler.class).recorder,
                    second.getBean(Handler.class).recorder, third.getBean(Handler.class).recorder);
            RedisJobStore store = first.getBean(RedisJobStore.class);
            DelayPublisher publisher = third.getBean(DelayPublisher.class);

            String slow = publisher.publish("pausable", "slow", Duration.ZERO);
            assertThat(Slow.started.await(20, TimeUnit.SECONDS)).as("the slow job started").isTrue();

            assertThat(first.getBean(DelayQueueControl.class).pause("pausable")).isTrue();
            List<PublishRequest> requests = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                requests.add(PublishRequest.of("job-" + i).delay(Duration.ofMillis(i * 10L)).key("p-" + i));
            }
            assertThat(publisher.publishAll("pausable", requests)).as("publishing goes on").hasSize(30);
            await().atMost(Duration.ofSeconds(10)).until(() -> store.stats(whole("pausable")).ready() == 30);

            Slow.release.countDown();
            await().atMost(Duration.ofSeconds(10)).until(() -> total(recorders) == 1 && store.stats(whole("pausable")).running() == 0);
            assertThat(recorders.stream().mapToInt(r -> r.count(slow)).sum()).as("the running job finished").isEqualTo(1);

            // every instance has claimed since the pause (each claim checks it); none may take a job
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> total(recorders) == 1);
            assertThat(store.stats(whole("pausable")).ready()).isEqualTo(30);

            Health health = second.getBean(DelayQueuesHealthIndicator.class).health();
            assertThat(health.getStatus()).as("a paused queue's overdue jobs wait on purpose").isEqualTo(Status.UP);
            assertThat(health.getDetails().get("queues").toString()).contains("paused=true");
            assertThat(third.getBean(MeterRegistry.class).get("delay.queue.paused").tag("queue", "pausable").gauge()
                    .value()).isEqualTo(1.0);
            assertThat(third.getBean(DelayQueueControl.class).state("pausable").paused()).isTrue();

            assertThat(second.getBean(DelayQueueControl.class).resume("pausable")).isTrue();
            await().atMost(Duration.ofSeconds(20)).until(() -> total(recorders) == 31);
            Map<String, Integer> union = new HashMap<>();
            recorders.forEach(r -> r.counts().forEach((id, count) -> union.merge(id, count, Integer::sum)));
            assertThat(union).hasSize(31).allSatisfy((id, count) -> assertThat(count).as(id).isEqualTo(1));
            assertThat(third.getBean(MeterRegistry.class).get("delay.queue.paused").tag("queue", "pausable").gauge()
                    .value()).isZero();
        }
    }

    @Test
    void pausedOnStartupHoldsANewQueueUntilResumedAndNotAgainAfterARestart() {
        String prefix = TestRedis.uniquePrefix();
        String pausedOnStartup = "delay.queues.held-until-released.paused-on-startup=true";
        try (ConfigurableApplicationContext app = TestApps.run(prefix, List.of(FreshQueueHandler.class), pausedOnStartup)) {
            Recorder recorder = app.getBean(FreshQueueHandler.class).recorder;
            DelayQueueControl control = app.getBean(DelayQueueControl.class);
            assertThat(control.state("held-until-released").paused()).isTrue();
            app.getBean(DelayPublisher.class).publish("held-until-released", "first", Duration.ZERO);
            await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(3)).until(() -> recorder.total() == 0);

            control.resume("held-until-released");
            await().atMost(Duration.ofSeconds(10)).until(() -> recorder.total() == 1);
        }
        try (ConfigurableApplicationContext restarted = TestApps.run(prefix, List.of(FreshQueueHandler.class),
                pausedOnStartup)) {
            assertThat(restarted.getBean(DelayQueueControl.class).state("held-until-released").paused())
                    .as("resumed once: a restart does not pause it again").isFalse();
            restarted.getBean(DelayPublisher.class).publish("held-until-released", "second", Duration.ZERO);
            Recorder recorder = restarted.getBean(FreshQueueHandler.class).recorder;
            await().atMost(Duration.ofSeconds(10)).until(() -> recorder.total() == 1);
        }
    }

    private static int total(List<Recorder> recorders) {
        return recorders.stream().mapToInt(Recorder::total).sum();
    }
}
