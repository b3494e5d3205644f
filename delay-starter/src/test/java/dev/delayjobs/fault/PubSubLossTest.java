package dev.delayjobs.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.fault.ConsumerMain.Work;
import dev.delayjobs.fault.HandledLog.Handled;
import dev.delayjobs.embeddedredis.RedisServerProcess;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/**
 * Scenario 2: the wake message that tells the transfer timer about an earlier due time never
 * arrives, because the pub/sub connection was killed ({@code CLIENT KILL TYPE pubsub}) or because
 * nothing was published. The sweep (1 s here, the default) transfers due jobs anyway: a job is
 * late by one sweep interval at most. The anchor, {@code RDelayedQueue}, has no such fallback.
 */
@Tag("slow")
@Tag("fault")
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class PubSubLossTest {

    private static final String QUEUE = "wakeful";
    private static final long SWEEP_MS = 1000;
    /** Transfer, claim and handler start after the sweep, on a busy 2-core machine. */
    private static final long TOLERANCE_MS = 500;

    static class Handler {

        final List<Handled> handled = new CopyOnWriteArrayList<>();

        @DelayedHandler(queue = QUEUE, concurrency = "4")
        void handle(DelayedJob<Work> job) {
            long now = System.currentTimeMillis();
            handled.add(new Handled(job.id(), job.attempt(), now, job.dueAt().toEpochMilli(), now, 0));
        }
    }

    static RedisServerProcess redis;
    static ConfigurableApplicationContext app;
    static String prefix;
    static DelayPublisher publisher;
    static Handler handler;

    @BeforeAll
    static void start() {
        redis = RedisServerProcess.start();
        prefix = TestRedis.uniquePrefix();
        app = TestApps.run("127.0.0.1", redis.port(), prefix, List.of(Handler.class),
                "delay.sweep-interval=" + SWEEP_MS + "ms");
        publisher = app.getBean(DelayPublisher.class);
        handler = app.getBean(Handler.class);
        // a job due far ahead: the transfer timer is armed for it, not for the jobs below
        publisher.publish(QUEUE, Work.of(0, 0), Duration.ofHours(1), "far-ahead");
        await().atMost(Duration.ofSeconds(10)).until(() -> wakeSubscribers() > 0);
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
        redis.close();
    }

    @Test
    void jobsAreDeliveredWithinOneSweepWhileThePubSubConnectionIsKilledAgainAndAgain() throws InterruptedException {
        // the subscriber connection is killed every 5 ms while 10 jobs are published: Redisson
        // resubscribes each time, but most wake messages find no subscriber
        AtomicLong killed = new AtomicLong();
        AtomicBoolean killing = new AtomicBoolean(true);
        Thread killer = new Thread(() -> {
            while (killing.get()) {
                killed.addAndGet(RedisCli.callLong(redis.port(), "CLIENT", "KILL", "TYPE", "pubsub"));
                sleep(5);
            }
        }, "pubsub-killer");
        killer.start();
        List<String> ids = new ArrayList<>();
        try {
            await().atMost(Duration.ofSeconds(5)).until(() -> killed.get() > 0);
            for (int i = 0; i < 10; i++) {
                ids.add(publisher.publish(QUEUE, Work.of(i, 0), Duration.ofMillis(300), "after-kill-" + i));
                sleep(200);
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> handled(ids).size() == ids.size());
        }
        finally {
            killing.set(false);
            killer.join(5000);
        }
        long stoppedKillingAt = System.currentTimeMillis();
        assertThat(killed.get()).as("pub/sub connections killed").isPositive();
        long maxLateness = handled(ids).stream().mapToLong(Handled::lateness).max().orElseThrow();
        long lateOver100 = handled(ids).stream().filter(h -> h.lateness() > 100).count();
        assertThat(handled(ids)).allMatch(h -> h.lateness() >= 0 && h.lateness() <= SWEEP_MS + TOLERANCE_MS);

        // the subscription comes back by itself (Redisson resubscribes; the sweep would too)
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).until(() -> wakeSubscribers() > 0);
        long resubscribedAfter = System.currentTimeMillis() - stoppedKillingAt;
        List<String> later = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            later.add(publisher.publish(QUEUE, Work.of(i, 0), Duration.ofMillis(300), "after-resubscribe-" + i));
            sleep(400);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> handled(later).size() == later.size());
        long laterMaxLateness = handled(later).stream().mapToLong(Handled::lateness).max().orElseThrow();

        FaultReport.record("CLIENT KILL TYPE pubsub every 5 ms while 10 jobs are published (sweep 1 s)",
                "published=10 handled=" + handled(ids).size() + " lost=0 pubsubConnectionsKilled=" + killed.get()
                        + " maxLatenessMs=" + maxLateness + " lateByMoreThan100ms=" + lateOver100
                        + " resubscribedWithinMs=" + resubscribedAfter
                        + "; 5 jobs after resubscribing: maxLatenessMs=" + laterMaxLateness);
    }

    @Test
    void jobsWhoseWakeMessageWasNeverPublishedAreDeliveredWithinOneSweep() {
        // what publish.lua stores, without its PUBLISH: written straight into Redis
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            String id = "unannounced-" + i;
            long now = System.currentTimeMillis();
            long due = now + 200;
            String record = Integer.toString(1000 + i, 36) + "," + Long.toString(due, 36) + "," + Long.toString(due - now, 36)
                    + "|{\"n\":" + i + ",\"firstWorkMs\":0,\"laterWorkMs\":0}";
            RedisCli.call(redis.port(), "HSET", key("jobs"), id, record);
            RedisCli.call(redis.port(), "ZADD", key("delayed"), Long.toString(due), id);
            ids.add(id);
            sleep(170);
        }

        await().atMost(Duration.ofSeconds(10)).until(() -> handled(ids).size() == ids.size());
        long maxLateness = handled(ids).stream().mapToLong(Handled::lateness).max().orElseThrow();
        assertThat(handled(ids)).allMatch(h -> h.lateness() >= 0 && h.lateness() <= SWEEP_MS + TOLERANCE_MS);
        FaultReport.record("wake message never published (10 jobs written without PUBLISH, sweep 1 s)",
                "published=10 handled=" + handled(ids).size() + " lost=0 maxLatenessMs=" + maxLateness);
    }

    private static List<Handled> handled(List<String> ids) {
        return handler.handled.stream().filter(h -> ids.contains(h.id())).toList();
    }

    private static long wakeSubscribers() {
        List<?> reply = (List<?>) RedisCli.call(redis.port(), "PUBSUB", "NUMSUB", key("wake"));
        return (Long) reply.get(1);
    }

    private static String key(String name) {
        return prefix + ":{" + QUEUE + "}:" + name;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
