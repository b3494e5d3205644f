package dev.delayjobs.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.JobInfo;
import dev.delayjobs.JobState;
import dev.delayjobs.NonRetryableJobException;
import dev.delayjobs.PublishRequest;

/**
 * What an application's test does with the test support: no Redis configured, a 30-minute
 * timeout handled in well under a second, a failing job awaited in the dead set, queues cleared.
 */
@SpringBootTest(properties = { "delay.queues.merchant-timeout.concurrency=4", "delay.queues.merchant-timeout.group-concurrency=1" })
@EmbeddedRedis
class DelayQueueTesterTest {

    record OrderTimeout(long orderId) {
    }

    static class OrderTimeouts {

        final Set<Long> closed = ConcurrentHashMap.newKeySet();

        @DelayedHandler(queue = "order-timeout")
        void close(OrderTimeout timeout) {
            if (timeout.orderId() < 0) {
                throw new NonRetryableJobException("no order " + timeout.orderId());
            }
            closed.add(timeout.orderId());
        }
    }

    /** Jobs of the group "slow" wait for the test to let them finish. */
    static class MerchantTimeouts {

        final Map<Long, String> groups = new ConcurrentHashMap<>();
        final CountDownLatch slowMayFinish = new CountDownLatch(1);

        @DelayedHandler(queue = "merchant-timeout")
        void close(DelayedJob<OrderTimeout> job) throws InterruptedException {
            if ("slow".equals(job.group())) {
                slowMayFinish.await(10, TimeUnit.SECONDS);
            }
            groups.put(job.payload().orderId(), job.group() == null ? "(default group)" : job.group());
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({ OrderTimeouts.class, MerchantTimeouts.class })
    static class App {
    }

    @Autowired
    DelayPublisher delays;

    @Autowired
    DelayQueueTester tester;

    @Autowired
    OrderTimeouts timeouts;

    @Autowired
    MerchantTimeouts merchants;

    @BeforeEach
    void clean() {
        tester.clearAll();
    }

    @Test
    void aThirtyMinuteTimeoutIsHandledAtOnce() {
        long started = System.nanoTime();
        String id = delays.publish("order-timeout", new OrderTimeout(42), Duration.ofMinutes(30));
        String later = delays.publish("order-timeout", new OrderTimeout(43), Duration.ofHours(2));

        assertThat(tester.fastForward("order-timeout", Duration.ofMinutes(30))).isEqualTo(1);
        tester.awaitHandled("order-timeout", id);

        assertThat(timeouts.closed).containsExactly(42L);
        assertThat(delays.find("order-timeout", later).map(JobInfo::state)).contains(JobState.DELAYED);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void aJobThatFailsIsAwaitedInTheDeadSetAndAwaitHandledSaysSo() {
        String id = delays.publish("order-timeout", new OrderTimeout(-1), Duration.ofMinutes(30));
        tester.fastForward("order-timeout", Duration.ofHours(1));

        JobInfo dead = tester.awaitDead("order-timeout", id);
        assertThat(dead.lastError()).contains("no order -1");
        assertThatThrownBy(() -> tester.awaitHandled("order-timeout", id)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("went to the dead set").hasMessageContaining("no order -1");
    }

    @Test
    void awaitIdleWaitsForWhatIsDueAndClearLeavesNothing() {
        for (int i = 0; i < 20; i++) {
            delays.publish("order-timeout", new OrderTimeout(i), Duration.ZERO);
        }
        delays.publish("order-timeout", new OrderTimeout(99), Duration.ofDays(7));
        tester.awaitIdle("order-timeout");
        assertThat(timeouts.closed).hasSizeGreaterThanOrEqualTo(20);

        tester.clear("order-timeout");
        tester.fastForward("order-timeout", Duration.ofDays(8));
        tester.awaitIdle("order-timeout");
        assertThat(timeouts.closed).doesNotContain(99L);
    }

    @Test
    void oneGroupIsAwaitedWhileAnotherIsStillRunningAndHandlersSeeTheirGroup() {
        for (long i = 0; i < 3; i++) {
            delays.publish("merchant-timeout", PublishRequest.of(new OrderTimeout(i)).group("slow").delay(Duration.ofMinutes(30)));
        }
        for (long i = 10; i < 15; i++) {
            delays.publish("merchant-timeout", PublishRequest.of(new OrderTimeout(i)).group("fast").delay(Duration.ofMinutes(30)));
        }
        delays.publish("merchant-timeout", PublishRequest.of(new OrderTimeout(20)).delay(Duration.ofMinutes(30)));
        assertThat(tester.fastForward("merchant-timeout", Duration.ofMinutes(30))).isEqualTo(9);

        tester.awaitGroupIdle("merchant-timeout", "fast");
        assertThat(merchants.groups).containsEntry(10L, "fast").containsEntry(14L, "fast").doesNotContainKeys(0L, 1L, 2L);
        assertThatThrownBy(() -> tester.withTimeout(Duration.ofMillis(200)).awaitGroupIdle("merchant-timeout", "slow"))
                .isInstanceOf(AssertionError.class).hasMessageContaining("of the group ready, running or due");

        merchants.slowMayFinish.countDown();
        tester.awaitGroupIdle("merchant-timeout", "slow");
        tester.awaitIdle("merchant-timeout");
        assertThat(merchants.groups).containsEntry(0L, "slow").containsEntry(2L, "slow").containsEntry(20L, "(default group)");
    }

    @Test
    void aWaitThatRunsOutSaysWhatItSawLast() {
        String id = delays.publish("order-timeout", new OrderTimeout(7), Duration.ofHours(1));
        assertThatThrownBy(() -> tester.withTimeout(Duration.ofMillis(200)).awaitHandled("order-timeout", id))
                .isInstanceOf(AssertionError.class).hasMessageContaining("last seen: DELAYED");
    }
}
