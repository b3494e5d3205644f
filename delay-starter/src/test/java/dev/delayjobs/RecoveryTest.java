package dev.delayjobs;

import static dev.delayjobs.test.ClaimRequests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static dev.delayjobs.test.TestPartitions.whole;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.redisson.api.RMap;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

import dev.delayjobs.listener.ListenerContainer;
import dev.delayjobs.listener.ListenerContainerRegistry;
import dev.delayjobs.redis.NewJob;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.store.StoredJob;
import dev.delayjobs.test.Recorder;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/** Jobs survive the instance that held them, and wait for a consumer that is not running yet. */
class RecoveryTest {

    record Task(int n) {
    }

    /** An instance whose handler never finishes on its own: it stands for a consumer that froze or crashed. */
    static class StuckHandler {

        final CountDownLatch entered = new CountDownLatch(2);
        final CountDownLatch release = new CountDownLatch(1);

        @DelayedHandler(queue = "work", concurrency = "2")
        void handle(Task task) throws InterruptedException {
            entered.countDown();
            release.await(60, TimeUnit.SECONDS);
        }
    }

    static class WorkingHandler {

        final Recorder recorder = new Recorder();

        @DelayedHandler(queue = "work", concurrency = "2")
        void handle(DelayedJob<Task> job) {
            recorder.record(job.id(), job.dueAt(), job.attempt(), job.payload());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class PublisherOnly {
    }

    @Test
    void jobsHeldByAnInstanceThatStoppedHeartbeatingAreRecoveredByAnother() {
        String prefix = TestRedis.uniquePrefix();
        ConfigurableApplicationContext crashed = TestApps.run(prefix, List.of(StuckHandler.class),
                "delay.heartbeat-interval=200ms", "delay.heartbeat-lease=1s", "delay.shutdown-timeout=0s");
        ConfigurableApplicationContext survivor = null;
        StuckHandler stuck = crashed.getBean(StuckHandler.class);
        try {
            DelayPublisher publisher = crashed.getBean(DelayPublisher.class);
            publisher.publish("work", new Task(1), Duration.ZERO, "job-1");
            publisher.publish("work", new Task(2), Duration.ZERO, "job-2");
            assertThat(entered(stuck)).as("both jobs claimed by the first instance").isTrue();
            assertThat(publisher.find("work", "job-1").orElseThrow().state()).isEqualTo(JobState.RUNNING);

            // the crash: heartbeats stop while the jobs stay claimed and unacknowledged
            crashed.getBean(dev.delayjobs.timer.QueueWatchdog.class).stop();

            survivor = TestApps.run(prefix, List.of(WorkingHandler.class), "delay.sweep-interval=200ms");
            Recorder recorder = survivor.getBean(WorkingHandler.class).recorder;
            await().atMost(Duration.ofSeconds(15)).until(() -> recorder.count("job-1") == 1 && recorder.count("job-2") == 1);
            assertThat(recorder.deliveries()).extracting(Recorder.Delivery::attempt).containsOnly(2);
            DelayPublisher survivorPublisher = survivor.getBean(DelayPublisher.class);
            await().atMost(Duration.ofSeconds(5)).until(() -> survivorPublisher.find("work", "job-1").isEmpty()
                    && survivorPublisher.find("work", "job-2").isEmpty());
        }
        finally {
            stuck.release.countDown();
            crashed.close();
            if (survivor != null) {
                survivor.close();
            }
        }
    }

    @Test
    void jobsThatBecameDueWhileNoConsumerRanAreDeliveredWhenOneStarts() {
        String prefix = TestRedis.uniquePrefix();
        Instant due;
        try (ConfigurableApplicationContext producer = TestApps.run(prefix, List.of(PublisherOnly.class))) {
            DelayPublisher publisher = producer.getBean(DelayPublisher.class);
            due = Instant.now().plusMillis(300);
            for (int i = 0; i < 5; i++) {
                publisher.publishAt("work", new Task(i), due, "early-" + i);
            }
            assertThat(publisher.find("work", "early-0").orElseThrow().state()).isEqualTo(JobState.DELAYED);
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> Instant.now().isAfter(due.plusMillis(200)));

        try (ConfigurableApplicationContext consumer = TestApps.run(prefix, List.of(WorkingHandler.class))) {
            Recorder recorder = consumer.getBean(WorkingHandler.class).recorder;
            await().atMost(Duration.ofSeconds(10)).until(() -> recorder.total() == 5);
            assertThat(recorder.counts()).containsOnlyKeys("early-0", "early-1", "early-2", "early-3", "early-4");
            assertThat(recorder.deliveries()).extracting(Recorder.Delivery::attempt).containsOnly(1);
        }
    }

    @Test
    void gracefulShutdownHandsRunningJobsBackAtOnceNotAfterTheLease() {
        String prefix = TestRedis.uniquePrefix();
        ConfigurableApplicationContext stopping = TestApps.run(prefix, List.of(StuckHandler.class),
                "delay.shutdown-timeout=200ms", "delay.heartbeat-lease=60s");
        StuckHandler stuck = stopping.getBean(StuckHandler.class);
        DelayPublisher publisher = stopping.getBean(DelayPublisher.class);
        publisher.publish("work", new Task(1), Duration.ZERO, "handed-back-1");
        publisher.publish("work", new Task(2), Duration.ZERO, "handed-back-2");
        assertThat(entered(stuck)).isTrue();

        stopping.close();

        try (ConfigurableApplicationContext next = TestApps.run(prefix, List.of(WorkingHandler.class))) {
            // the lease is 60 s: only a hand-back at shutdown explains a delivery within 10 s
            Recorder recorder = next.getBean(WorkingHandler.class).recorder;
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> recorder.count("handed-back-1") == 1 && recorder.count("handed-back-2") == 1);
        }
    }

    @Test
    void aClaimRefusedByTheFenceIsNotTakenForAnEmptyQueue() {
        String prefix = TestRedis.uniquePrefix();
        try (ConfigurableApplicationContext app = TestApps.run(prefix, List.of(WorkingHandler.class),
                "delay.instance-id=pod-f", "delay.heartbeat-lease=60s")) {
            DelayPublisher publisher = app.getBean(DelayPublisher.class);
            Recorder recorder = app.getBean(WorkingHandler.class).recorder;
            publisher.publish("work", new Task(1), Duration.ZERO, "before");
            await().atMost(Duration.ofSeconds(10)).until(() -> recorder.count("before") == 1);

            // a resent copy of the claimer's last hand-back ran once more and raised the fence past
            // the epoch the claimer claims with
            RMap<String, String> fences = app.getBean(RedissonClient.class).getMap(prefix + ":{work}:fences",
                    StringCodec.INSTANCE);
            fences.put("pod-f", Long.toString(Long.parseLong(fences.get("pod-f")) + 1));
            publisher.publish("work", new Task(2), Duration.ZERO, "after");

            // the lease is 60 s: only a claimer that sees the refusal and claims above the fence
            // runs the job within 10 s
            await().atMost(Duration.ofSeconds(10)).until(() -> recorder.count("after") == 1);
        }
    }

    private static boolean entered(StuckHandler stuck) {
        try {
            return stuck.entered.await(10, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Test
    void aProcessRestartedUnderTheSameInstanceIdTakesOverWhatTheDeadOneHeld() {
        String prefix = TestRedis.uniquePrefix();
        RedissonClient redisson = TestRedis.newClient();
        try {
            // the process before the restart: it claimed three of five jobs, raised its claim fence
            // after lost replies, and was killed (nothing of it runs here but what it left in Redis)
            RedisJobStore store = new RedisJobStore(redisson, prefix);
            for (int i = 1; i <= 5; i++) {
                store.publish(whole("work"), List.of(new NewJob("job-" + i, true, 0, false, "{\"n\":" + i + "}")));
            }
            List<String> held = store.partition(whole("work")).claim(request("pod-0", 3, Duration.ofSeconds(20), 1)).jobs().stream()
                    .map(StoredJob::id).toList();
            for (int epoch = 2; epoch <= 4; epoch++) {
                store.partition(whole("work")).releaseAllBut("pod-0", held, epoch);
            }

            // its successor under the same id: heartbeats keep pod-0's lease alive, so only a
            // take-over at start can free the three jobs, and its claims must clear the old fence
            try (ConfigurableApplicationContext restarted = TestApps.run(prefix, List.of(WorkingHandler.class),
                    "delay.instance-id=pod-0")) {
                WorkingHandler handler = restarted.getBean(WorkingHandler.class);
                await().atMost(Duration.ofSeconds(10)).until(() -> handler.recorder.total() == 5);

                // stop() then start() in one JVM is the same case
                ListenerContainer container = restarted.getBean(ListenerContainerRegistry.class).getContainer("work").orElseThrow();
                container.stop();
                container.start();
                restarted.getBean(DelayPublisher.class).publish("work", new Task(6), Duration.ZERO, "job-6");
                await().atMost(Duration.ofSeconds(10)).until(() -> handler.recorder.total() == 6);
                assertThat(handler.recorder.counts()).hasSize(6).allSatisfy((id, count) -> assertThat(count).isEqualTo(1));
            }
        }
        finally {
            redisson.shutdown();
        }
    }
}
