package dev.delayjobs.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.JobInfo;
import dev.delayjobs.JobState;
import dev.delayjobs.NonRetryableJobException;

/**
 * What an application's test does with the test support: no Redis configured, a 30-minute
 * timeout handled in well under a second, a failing job awaited in the dead set, queues cleared.
 */
@SpringBootTest
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

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(OrderTimeouts.class)
    static class App {
    }

    @Autowired
    DelayPublisher delays;

    @Autowired
    DelayQueueTester tester;

    @Autowired
    OrderTimeouts timeouts;

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
    void aWaitThatRunsOutSaysWhatItSawLast() {
        String id = delays.publish("order-timeout", new OrderTimeout(7), Duration.ofHours(1));
        assertThatThrownBy(() -> tester.withTimeout(Duration.ofMillis(200)).awaitHandled("order-timeout", id))
                .isInstanceOf(AssertionError.class).hasMessageContaining("last seen: DELAYED");
    }
}
