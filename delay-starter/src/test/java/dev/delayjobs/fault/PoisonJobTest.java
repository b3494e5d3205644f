package dev.delayjobs.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.JobInfo;
import dev.delayjobs.JobState;
import dev.delayjobs.fault.ConsumerMain.Work;
import dev.delayjobs.fault.HandledLog.Handled;
import dev.delayjobs.embeddedredis.RedisServerProcess;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/**
 * Scenario 5, second half: a job whose handler kills its JVM on every delivery. Consumers keep
 * being restarted, as a process supervisor would; the job ends in the dead set after
 * max-attempts deliveries instead of taking consumers down forever, and the queue keeps working.
 */
@Tag("slow")
@Tag("fault")
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class PoisonJobTest {

    private static final String QUEUE = "poisoned";
    private static final int MAX_ATTEMPTS = 3;
    /** More starts than the job may cost: reaching it means the job loops. */
    private static final int MAX_STARTS = 8;

    private final String prefix = TestRedis.uniquePrefix();
    /** Every consumer started, in order: c0, c1, ... */
    private final List<ConsumerProcess> consumers = new ArrayList<>();
    private RedisServerProcess redis;
    private ConfigurableApplicationContext app;
    private DelayPublisher publisher;

    /** A Redis of the test's own, the publishing application, and the first two consumers, consuming. */
    @BeforeEach
    void startRedisAndTwoConsumers() {
        redis = RedisServerProcess.start();
        app = TestApps.run("127.0.0.1", redis.port(), prefix, List.of());
        publisher = app.getBean(DelayPublisher.class);
        consumers.add(start(0));
        consumers.add(start(1));
        consumers.forEach(c -> c.awaitReady(Duration.ofSeconds(90)));
    }

    @AfterEach
    void stopAll() {
        consumers.forEach(ConsumerProcess::close);
        if (app != null) {
            app.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void jobThatKillsItsConsumerEveryTimeEndsDeadAfterMaxAttempts() {
        for (int i = 0; i < 20; i++) {
            publisher.publish(QUEUE, Work.of(i, 0), Duration.ZERO, "before-" + i);
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> handledIds("before-") == 20);

        long publishedAt = System.currentTimeMillis();
        publisher.publish(QUEUE, Work.of(-1, 0), Duration.ZERO, "poison-1");
        superviseUntilDead("poison-1");
        long deadAfter = System.currentTimeMillis() - publishedAt;

        JobInfo dead = publisher.find(QUEUE, "poison-1").orElseThrow();
        assertThat(dead.attempts()).isEqualTo(MAX_ATTEMPTS);
        assertThat(dead.lastError()).matches("consumer c\\d stopped during attempt " + MAX_ATTEMPTS);
        List<Handled> deliveries = HandledLog.read(logs()).stream().filter(h -> h.id().equals("poison-1"))
                .toList();
        assertThat(deliveries).extracting(Handled::attempt).containsExactlyInAnyOrder(1, 2, 3);
        assertThat(deliveries).extracting(Handled::pid).doesNotHaveDuplicates();
        long killed = consumers.stream().filter(c -> !c.isAlive()).count();

        // the queue still works for everything else
        ConsumerProcess live = consumers.stream().filter(ConsumerProcess::isAlive).findFirst().orElseThrow();
        live.awaitReady(Duration.ofSeconds(90));
        for (int i = 0; i < 20; i++) {
            publisher.publish(QUEUE, Work.of(i, 0), Duration.ZERO, "after-" + i);
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> handledIds("after-") == 20);

        FaultReport.record("job that kills its consumer JVM on every delivery (max-attempts 3, lease 1s)",
                "deliveries=" + deliveries.size() + " consumerJvmsKilled=" + killed + " consumerJvmsStarted="
                        + consumers.size() + " deadAfterMs=" + deadAfter + " error='" + dead.lastError()
                        + "'; 20 jobs before and 20 after handled");
    }

    /**
     * The poison job's first delivery comes out of a prefetch buffer: its start mark is sent without
     * waiting, and the JVM dies at once, so Redis may not learn that it started. It still ends dead
     * after max-attempts deliveries, each killing a JVM.
     */
    @Test
    void jobThatKillsItsConsumerFromThePrefetchBufferEndsDeadAfterMaxAttempts() {
        // both consumers' worker and one-job buffer full of 2 s jobs: the poison job waits in ready, then
        // in the buffer of the first consumer whose worker moves on
        List<String> slow = List.of("slow-1", "slow-2", "slow-3", "slow-4");
        for (int i = 0; i < slow.size(); i++) {
            publisher.publish(QUEUE, Work.of(i, 2000), Duration.ZERO, slow.get(i));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> slow.stream().filter(id -> state(id) == JobState.RUNNING)
                .count() == 2 && slow.stream().filter(id -> state(id) == JobState.PREFETCHED).count() == 2);
        publisher.publish(QUEUE, Work.of(-1, 0), Duration.ZERO, "poison-buffered");
        await().atMost(Duration.ofSeconds(10)).until(() -> state("poison-buffered") == JobState.PREFETCHED);

        superviseUntilDead("poison-buffered");

        JobInfo dead = publisher.find(QUEUE, "poison-buffered").orElseThrow();
        List<Handled> deliveries = HandledLog.read(logs()).stream()
                .filter(h -> h.id().equals("poison-buffered")).toList();
        assertThat(deliveries).as("deliveries, each killing its JVM").hasSize(MAX_ATTEMPTS);
        assertThat(deliveries).extracting(Handled::pid).doesNotHaveDuplicates();
        // MAX_ATTEMPTS when the first start mark reached Redis before the JVM died; one fewer, and the
        // job marked suspect, when it did not
        assertThat(dead.attempts()).isBetween(MAX_ATTEMPTS - 1, MAX_ATTEMPTS);
        assertThat(dead.lastError()).matches("consumer c\\d stopped during attempt " + dead.attempts()
                + "(, after an earlier consumer stopped while holding it with no start mark recorded)?");
        assertThat(dead.lastError().contains("no start mark")).isEqualTo(dead.attempts() == MAX_ATTEMPTS - 1);
        await().atMost(Duration.ofSeconds(30)).until(() -> HandledLog.counts(HandledLog.read(logs())).keySet()
                .containsAll(slow));
        FaultReport.record("job that kills its consumer JVM, first taken from a prefetch buffer (max-attempts 3)",
                "deliveries=" + deliveries.size() + " attemptsRecorded=" + dead.attempts() + " error='" + dead.lastError()
                        + "' consumerJvmsStarted=" + consumers.size());
    }

    /** A supervisor: two consumers run at all times, each one that dies is replaced, until the job is dead. */
    private void superviseUntilDead(String id) {
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(100)).until(() -> {
            for (int i = 0; i < consumers.size(); i++) {
                if (!consumers.get(i).isAlive() && consumers.stream().filter(ConsumerProcess::isAlive).count() < 2) {
                    assertThat(consumers).as("consumer starts: the poison job loops").hasSizeLessThan(MAX_STARTS);
                    consumers.add(start(consumers.size()));
                }
            }
            return state(id) == JobState.DEAD;
        });
    }

    private JobState state(String id) {
        return publisher.find(QUEUE, id).map(JobInfo::state).orElse(null);
    }

    private ConsumerProcess start(int n) {
        return ConsumerProcess.start("c" + n, redis, prefix, QUEUE, 1, "fault.halt-on=poison-",
                "delay.heartbeat-interval=300ms", "delay.heartbeat-lease=1s", "delay.sweep-interval=200ms",
                "delay.consumer.max-attempts=" + MAX_ATTEMPTS, "delay.consumer.prefetch=1");
    }

    private List<Path> logs() {
        return consumers.stream().map(ConsumerProcess::log).toList();
    }

    private long handledIds(String idPrefix) {
        return HandledLog.read(logs()).stream().map(Handled::id).filter(id -> id.startsWith(idPrefix)).distinct()
                .count();
    }
}
