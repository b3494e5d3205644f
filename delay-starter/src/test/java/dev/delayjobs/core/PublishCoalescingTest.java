package dev.delayjobs.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNode;
import org.redisson.api.redisnode.RedisNodes;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayQueueException;
import dev.delayjobs.JobState;
import dev.delayjobs.embeddedredis.RedisServerProcess;
import dev.delayjobs.partition.QueueLayout;
import dev.delayjobs.queue.Partition;
import dev.delayjobs.queue.QueueName;
import dev.delayjobs.redis.NewJob;
import dev.delayjobs.redis.PublishOutcome;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/**
 * Concurrent publishes to one queue share script calls, and each caller still gets its own job.
 * Redis is frozen while ten callers line up, so the sharing is certain, not likely: the first
 * call stores one job, the next all nine others.
 */
class PublishCoalescingTest {

    // a Redis of each test's own: the tests freeze it
    private RedisServerProcess redis;
    private ConfigurableApplicationContext app;
    private DelayPublisher publisher;

    @BeforeEach
    void startRedisAndApp() {
        redis = RedisServerProcess.start();
        app = TestApps.run(redis.host(), redis.port(), TestRedis.uniquePrefix(), List.of());
        publisher = app.getBean(DelayPublisher.class);
        publisher.publish("mails", "warm-up", Duration.ofHours(1)); // loads the script
    }

    @AfterEach
    void stopAppAndRedis() {
        if (app != null) {
            app.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void callersThatArriveDuringACallShareTheNextOne() throws InterruptedException {
        RedissonClient redisson = app.getBean(RedissonClient.class);
        long callsBefore = scriptCalls(redisson);

        redis.pause();
        Map<Integer, String> ids = new ConcurrentHashMap<>();
        List<Thread> callers = new ArrayList<>();
        try {
            for (int i = 0; i < 10; i++) {
                Thread caller = startPublishing(i, "mail-" + i, ids);
                callers.add(caller);
                if (i == 0) {
                    // the first caller's call is in flight (Redis frozen): the others line up behind it
                    await().atMost(Duration.ofSeconds(5)).until(() -> caller.getState() != Thread.State.RUNNABLE);
                }
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> callers.stream()
                    .allMatch(t -> t.getState() == Thread.State.WAITING || t.getState() == Thread.State.TIMED_WAITING));
        }
        finally {
            redis.resume();
        }
        for (Thread caller : callers) {
            caller.join(10_000);
        }

        // counted before the finds below, which are script calls too
        assertThat(scriptCalls(redisson) - callsBefore).as("script calls for 10 publishes").isEqualTo(2);
        assertThat(ids).hasSize(10);
        for (int i = 0; i < 10; i++) {
            assertThat(ids.get(i)).isEqualTo("mail-" + i);
            assertThat(publisher.find("mails", "mail-" + i)).get().satisfies(job -> {
                assertThat(job.state()).isEqualTo(JobState.DELAYED);
            });
        }
    }

    @Test
    void aCallerInterruptedBeforeItsJobsWentInACallPublishesNothingAndTheOthersGoOn() throws Exception {

        redis.pause();
        Map<String, Object> results = new ConcurrentHashMap<>();
        Thread first = new Thread(() -> results.put("first", publisher.publish("mails", "1", Duration.ofHours(1), "first")));
        Thread second = new Thread(() -> {
            try {
                results.put("second", publisher.publish("mails", "2", Duration.ofHours(1), "second"));
            }
            catch (RuntimeException ex) {
                results.put("second", ex);
                results.put("second interrupted", Thread.currentThread().isInterrupted());
            }
        });
        try {
            first.start();
            await().atMost(Duration.ofSeconds(5)).until(() -> first.getState() != Thread.State.RUNNABLE);
            second.start();
            await().atMost(Duration.ofSeconds(5)).until(() -> second.getState() == Thread.State.WAITING);
            second.interrupt();
            second.join(5_000);
        }
        finally {
            redis.resume();
        }
        first.join(10_000);

        assertThat(results.get("second")).isInstanceOf(DelayQueueException.class)
                .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.THROWABLE)
                .hasMessageContaining("nothing was published");
        assertThat(results.get("second interrupted")).as("the interrupt flag is kept").isEqualTo(true);
        assertThat(results.get("first")).isEqualTo("first");
        assertThat(publisher.find("mails", "first")).isPresent();
        assertThat(publisher.find("mails", "second")).isEmpty();
    }

    @Test
    void anErrorThrownInACallerWaitingForItsCallWithdrawsItsJobsAndTheNextPublishGoesThrough() throws Exception {
        PublishCoalescer coalescer = new PublishCoalescer(app.getBean(RedisJobStore.class));
        Partition orders = QueueLayout.of(QueueName.of("orders"), 1).all().get(0);
        // what BlockHound throws in a blocking publisher on an event loop when it would park
        Error blockingCall = new Error("Blocking call! jdk.internal.misc.Unsafe#park");
        NewJob second = unkeyedJob();
        Map<String, Object> results = new ConcurrentHashMap<>();

        redis.pause();
        Thread first = new Thread(() -> results.put("first", coalescer.publish(orders, List.of(job("first")))));
        Thread waiting = new Thread(() -> {
            try {
                coalescer.publish(orders, List.of(second));
            }
            catch (Throwable ex) {
                results.put("second", ex);
            }
        });
        try {
            first.start();
            // the first call is in flight (Redis frozen) and its caller waits: the next caller lines up behind it
            await().atMost(Duration.ofSeconds(5)).until(() -> first.getState() == Thread.State.WAITING);
            coalescer.beforeWait(() -> {
                if (Thread.currentThread() == waiting) {
                    throw blockingCall;
                }
            });
            waiting.start();
            waiting.join(5_000);
            coalescer.beforeWait(() -> { });
        }
        finally {
            redis.resume();
        }
        first.join(10_000);
        assertThat(results.get("second")).isSameAs(blockingCall);

        // the caller heard it failed and publishes again, as an application would; then another publish
        NewJob again = unkeyedJob();
        CompletableFuture<List<PublishOutcome>> retried = CompletableFuture.supplyAsync(() -> coalescer.publish(orders, List.of(again)));
        CompletableFuture<List<PublishOutcome>> next = CompletableFuture.supplyAsync(() -> coalescer.publish(orders, List.of(job("third"))));

        assertThat(retried.get(10, TimeUnit.SECONDS)).containsExactly(PublishOutcome.CREATED);
        assertThat(next.get(10, TimeUnit.SECONDS)).containsExactly(PublishOutcome.CREATED);
        assertThat(results.get("first")).isEqualTo(List.of(PublishOutcome.CREATED));
        RedisJobStore store = app.getBean(RedisJobStore.class);
        assertThat(store.find(orders, second.id())).as("the jobs of the caller that failed").isEmpty();
        assertThat(store.find(orders, again.id())).isPresent();
        assertThat(store.stats(orders).delayed()).as("first, the retry and third, each once").isEqualTo(3);
    }

    /** A job under business key {@code key}, due in an hour. */
    private static NewJob job(String key) {
        return new NewJob(key, true, Duration.ofHours(1).toMillis(), false, "\"" + key + "\"");
    }

    /** A job without a key (its id generated), due in an hour. */
    private static NewJob unkeyedJob() {
        String id = RedisDelayPublisher.newId();
        return new NewJob(id, true, Duration.ofHours(1).toMillis(), false, "\"" + id + "\"", true);
    }

    @Test
    void sharedCallsStillStoreTheirJobsAfterRedisForgotTheScript() throws InterruptedException {
        RedissonClient redisson = app.getBean(RedissonClient.class);
        // what a restart or SCRIPT FLUSH does: the next EVALSHA gets NOSCRIPT and runs the source
        redisson.getScript().scriptFlush();

        List<Thread> callers = new ArrayList<>();
        Map<Integer, String> ids = new ConcurrentHashMap<>();
        for (int i = 0; i < 8; i++) {
            callers.add(startPublishing(i, "flushed-" + i, ids));
        }
        for (Thread caller : callers) {
            caller.join(10_000);
        }

        assertThat(ids).hasSize(8);
        for (int i = 0; i < 8; i++) {
            assertThat(publisher.find("mails", "flushed-" + i)).get()
                    .satisfies(job -> assertThat(job.state()).isEqualTo(JobState.DELAYED));
        }
    }

    /** Starts a thread that publishes "mail n" under {@code key}, and puts the id it gets under n in {@code ids}. */
    private Thread startPublishing(int n, String key, Map<Integer, String> ids) {
        Thread caller = new Thread(() -> ids.put(n, publisher.publish("mails", "mail " + n, Duration.ofHours(1), key)));
        caller.start();
        return caller;
    }

    /** EVALSHA and EVAL calls the server ran so far. */
    private static long scriptCalls(RedissonClient redisson) {
        Map<String, String> stats = redisson.getRedisNodes(RedisNodes.SINGLE).getInstance()
                .info(RedisNode.InfoSection.COMMANDSTATS);
        long calls = 0;
        for (String command : List.of("cmdstat_evalsha", "cmdstat_eval")) {
            String line = stats.get(command);
            if (line != null) {
                calls += Long.parseLong(line.substring(line.indexOf("calls=") + 6, line.indexOf(',')));
            }
        }
        return calls;
    }
}
