package dev.delayjobs.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static dev.delayjobs.test.TestPartitions.whole;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayQueueException;
import dev.delayjobs.PublishRequest;
import dev.delayjobs.fault.ConsumerMain.Work;
import dev.delayjobs.fault.HandledLog.Handled;
import dev.delayjobs.redis.QueueStats;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.embeddedredis.RedisServerProcess;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/**
 * Scenario 4: Redis freezes ({@code SIGSTOP}) for 4 s, longer than the 1 s command timeout (and
 * its one retry), while two instances consume, then runs again ({@code SIGCONT}). Commands sent
 * meanwhile time out on the client but still run when Redis wakes up: claims whose reply was lost,
 * acks sent twice. No job is handed out twice, no worker stays stuck, and everything drains.
 */
@Tag("slow")
@Tag("fault")
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class RedisPauseTest {

    private static final String QUEUE = "paused";
    private static final int JOBS = 2000;

    @Test
    void redisPausedLongerThanTheCommandTimeoutCausesNoDuplicatesAndEverythingDrains() {
        String prefix = TestRedis.uniquePrefix();
        String[] settings = { "delay.sweep-interval=250ms", "fault.queue=" + QUEUE };
        try (RedisServerProcess redis = RedisServerProcess.start();
                ConfigurableApplicationContext one = instance(redis, prefix, "one", settings);
                ConfigurableApplicationContext two = instance(redis, prefix, "two", settings)) {
            DelayPublisher publisher = one.getBean(DelayPublisher.class);
            RedisJobStore store = one.getBean(RedisJobStore.class);
            RecordingHandler first = one.getBean(RecordingHandler.class);
            RecordingHandler second = two.getBean(RecordingHandler.class);

            Set<String> published = new HashSet<>();
            Random random = new Random(5);
            for (int from = 0; from < JOBS; from += 500) {
                List<PublishRequest> batch = new ArrayList<>();
                for (int i = from; i < from + 500; i++) {
                    batch.add(PublishRequest.of(Work.of(i, 5)).delay(Duration.ofMillis(random.nextInt(5000))).key("job-" + i));
                }
                published.addAll(publisher.publishAll(QUEUE, batch));
            }
            sleep(1500);

            redis.pause();
            long pausedAt = System.currentTimeMillis();
            // a publish into the frozen Redis times out; it may still run when Redis wakes up, so
            // the publisher retries it later with the same key, which cannot create a second job
            long publishStart = System.currentTimeMillis();
            assertThatThrownBy(() -> publisher.publish(QUEUE, Work.of(-1, 5), Duration.ZERO, "during-pause"))
                    .isInstanceOf(DelayQueueException.class);
            long publishFailedAfter = System.currentTimeMillis() - publishStart;
            sleep(4000 - (System.currentTimeMillis() - pausedAt));
            redis.resume();
            long resumedAt = System.currentTimeMillis();
            await().atMost(Duration.ofSeconds(20)).ignoreExceptions()
                    .until(() -> publisher.publish(QUEUE, Work.of(-1, 5), Duration.ZERO, "during-pause") != null);
            published.add("during-pause");

            await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(100))
                    .until(() -> HandledLog.counts(all(first, second)).keySet().containsAll(published));
            long drainedAfter = System.currentTimeMillis() - resumedAt;
            await().atMost(Duration.ofSeconds(10)).until(() -> store.stats(whole(QUEUE)).running() == 0);
            List<Handled> handled = all(first, second);
            Map<String, Integer> counts = HandledLog.counts(handled);
            Set<String> duplicated = HandledLog.duplicated(handled);

            assertThat(counts.keySet()).isEqualTo(published);
            assertThat(HandledLog.early(handled)).isEmpty();
            assertThat(duplicated).as("handled twice").hasSizeLessThanOrEqualTo(8);
            assertThat(first.handled.stream().filter(h -> h.startedAt() > resumedAt)).as("instance one works").isNotEmpty();
            assertThat(second.handled.stream().filter(h -> h.startedAt() > resumedAt)).as("instance two works").isNotEmpty();
            QueueStats stats = store.stats(whole(QUEUE));
            assertThat(stats.delayed() + stats.ready() + stats.running() + stats.dead()).as("jobs left").isZero();
            assertThat(stats.instances()).extracting(QueueStats.ConsumerInstance::id).containsExactlyInAnyOrder("one", "two");
            assertThat(stats.instances()).extracting(QueueStats.ConsumerInstance::held).containsOnly(0L);

            // no worker is stuck: a fresh burst is handled at once by both instances
            int before = handled.size();
            for (int i = 0; i < 200; i++) {
                publisher.publish(QUEUE, Work.of(i, 20), Duration.ZERO, "after-" + i);
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> all(first, second).size() == before + 200);
            long retriedAttempts = handled.stream().filter(h -> h.attempt() > 1).count();

            FaultReport.record("Redis SIGSTOP for 4 s (command timeout 1 s, 1 retry), two instances",
                    "published=" + published.size() + " handled=" + counts.size() + " duplicated=" + duplicated.size()
                            + " lost=0 deliveriesWithAttemptAbove1=" + retriedAttempts
                            + " publishDuringPauseThrewAfterMs=" + publishFailedAfter
                            + " allDrainedMsAfterResume=" + drainedAfter + " handledByOne=" + first.handled.size()
                            + " handledByTwo=" + second.handled.size());
        }
    }

    /**
     * The same stall under Redisson's default timeout (3 s) and retries: every command sent during
     * the stall is resent, and all copies run when Redis wakes up. A resent claim takes no more
     * jobs (nothing stays RUNNING without a worker), and a resent publish makes no second job.
     */
    @Test
    void aStallLongerThanTheDefaultTimeoutWithDefaultRetriesStrandsNothingAndPublishesOnce() throws Exception {
        String prefix = TestRedis.uniquePrefix();
        try (RedisServerProcess redis = RedisServerProcess.start();
                ConfigurableApplicationContext app = TestApps.run("127.0.0.1", redis.port(), prefix,
                        List.of(RecordingHandler.class), "delay.sweep-interval=250ms", "fault.queue=" + QUEUE,
                        "delay.instance-id=defaults")) {
            DelayPublisher publisher = app.getBean(DelayPublisher.class);
            RedisJobStore store = app.getBean(RedisJobStore.class);
            RecordingHandler handler = app.getBean(RecordingHandler.class);
            Set<String> published = new HashSet<>();
            Random random = new Random(11);
            for (int i = 0; i < 300; i++) {
                published.add(publisher.publish(QUEUE, Work.of(i, 5), Duration.ofMillis(random.nextInt(6000))));
            }
            sleep(1000);

            redis.pause();
            // a publish with a generated id into the frozen Redis: Redisson resends it meanwhile
            java.util.concurrent.CompletableFuture<String> duringStall = java.util.concurrent.CompletableFuture
                    .supplyAsync(() -> publisher.publish(QUEUE, Work.of(-1, 5), Duration.ZERO));
            sleep(8000);
            redis.resume();
            String stalledId = null;
            try {
                stalledId = duringStall.get(60, TimeUnit.SECONDS);
                published.add(stalledId);
            }
            catch (java.util.concurrent.ExecutionException gaveUp) {
                // out of retries: the job may or may not exist, under an id nobody was told
            }

            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                    .until(() -> HandledLog.counts(handler.handled).keySet().containsAll(published));
            await().atMost(Duration.ofSeconds(30)).until(() -> store.stats(whole(QUEUE)).running() == 0
                    && store.stats(whole(QUEUE)).ready() == 0 && store.stats(whole(QUEUE)).delayed() == 0);
            Set<String> handledIds = HandledLog.counts(handler.handled).keySet();
            Set<String> unknown = new HashSet<>(handledIds);
            unknown.removeAll(published);
            assertThat(unknown).as("jobs no publish call returned").hasSizeLessThanOrEqualTo(stalledId == null ? 1 : 0);
            assertThat(store.stats(whole(QUEUE)).instances()).extracting(QueueStats.ConsumerInstance::held).containsOnly(0L);
            assertThat(HandledLog.early(handler.handled)).isEmpty();
            FaultReport.record("Redis SIGSTOP for 8 s with Redisson's default timeout and retries, one instance",
                    "published=" + published.size() + " handled=" + handledIds.size() + " unknownJobs=" + unknown.size()
                            + " duplicated=" + HandledLog.duplicated(handler.handled).size()
                            + " publishDuringStall=" + (stalledId == null ? "threw" : "returned"));
        }
    }

    private static ConfigurableApplicationContext instance(RedisServerProcess redis, String prefix, String id,
            String... settings) {
        List<String> properties = new ArrayList<>(List.of(settings));
        properties.add("delay.instance-id=" + id);
        return TestApps.run("127.0.0.1", redis.port(), prefix,
                List.of(RecordingHandler.class, ShortRedisTimeouts.class), properties.toArray(String[]::new));
    }

    private static List<Handled> all(RecordingHandler first, RecordingHandler second) {
        List<Handled> all = new ArrayList<>(first.handled);
        all.addAll(second.handled);
        return all;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(Math.max(0, ms));
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
