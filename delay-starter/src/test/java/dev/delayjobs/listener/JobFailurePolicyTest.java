package dev.delayjobs.listener;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.FixedBackOff;

/** The configured failure policy: its exception classifier and its delays, without Redis. */
class JobFailurePolicyTest {

    private static final QueueSettings.ExponentialBackoff DEFAULTS = new QueueSettings.ExponentialBackoff(
            Duration.ofSeconds(1), 2.0, Duration.ofMinutes(10), 0.1);

    private final ConfiguredFailurePolicy policy = new ConfiguredFailurePolicy(queue -> DEFAULTS,
            queue -> queue.equals("orders") ? List.of(IllegalArgumentException.class, IOException.class) : List.of());

    @Test
    void configuredExceptionsAreNotRetriedWhetherThrownOrBehindTheFailure() {
        assertThat(policy.isRetryable("orders", new IllegalArgumentException("bad"))).isFalse();
        assertThat(policy.isRetryable("orders", new NumberFormatException("a subclass"))).isFalse();
        assertThat(policy.isRetryable("orders", new UncheckedIOException(new IOException("a cause")))).isFalse();
        assertThat(policy.isRetryable("orders", new IllegalStateException("outer",
                new RuntimeException("middle", new IllegalArgumentException("deep"))))).isFalse();
    }

    @Test
    void otherFailuresAndOtherQueuesAreRetried() {
        assertThat(policy.isRetryable("orders", new IllegalStateException("gateway down"))).isTrue();
        assertThat(policy.isRetryable("mails", new IllegalArgumentException("not listed for this queue"))).isTrue();
        assertThat(policy.isRetryable("orders", new java.util.concurrent.TimeoutException("handler timed out"))).isTrue();
    }

    @Test
    void aCauseChainThatLoopsEnds() {
        RuntimeException a = new RuntimeException("a");
        RuntimeException b = new RuntimeException("b", a);
        a.initCause(b);
        assertThat(policy.isRetryable("orders", a)).isTrue();
    }

    @Test
    void delaysWithoutJitterAreInitialTimesMultiplierPerAttemptUpToMax() {
        QueueSettings.ExponentialBackoff backoff = new QueueSettings.ExponentialBackoff(Duration.ofSeconds(1), 2.0,
                Duration.ofSeconds(5), 0.0);
        BackOffExecution execution = backoff.start();
        List<Long> delays = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            delays.add(execution.nextBackOff());
        }
        assertThat(delays).containsExactly(1000L, 2000L, 4000L, 5000L, 5000L);
        for (int attempt = 1; attempt <= 5; attempt++) {
            assertThat(OutcomeRecorder.delayAfter(backoff, attempt)).as("after attempt " + attempt)
                    .isEqualTo(delays.get(attempt - 1));
        }
    }

    @Test
    void jitterSpreadsEachDelayByItsFractionBothWaysButNeverAboveMax() {
        // the defaults: about 1 s after the first failure, about 2 s after the second (docs/configuration.md)
        long lowest = Long.MAX_VALUE;
        long highest = 0;
        for (int i = 0; i < 2000; i++) {
            long first = OutcomeRecorder.delayAfter(DEFAULTS, 1);
            assertThat(first).isBetween(900L, 1100L);
            assertThat(OutcomeRecorder.delayAfter(DEFAULTS, 2)).isBetween(1800L, 2200L);
            assertThat(OutcomeRecorder.delayAfter(DEFAULTS, 30)).isBetween(540_000L, 600_000L);
            lowest = Math.min(lowest, first);
            highest = Math.max(highest, first);
        }
        assertThat(lowest).as("spread below the delay too").isLessThan(950L);
        assertThat(highest).as("spread above the delay").isGreaterThan(1050L);
        assertThat(DEFAULTS.delayAfter(1, 0.0)).isEqualTo(Duration.ofMillis(900));
        assertThat(DEFAULTS.delayAfter(1, 0.999999)).isEqualTo(Duration.ofMillis(1100));
        assertThat(DEFAULTS.delayAfter(40, 0.999999)).isEqualTo(Duration.ofMinutes(10));
    }

    @Test
    void anyBackOffIsReadAtTheJobsAttemptAndItsStopSendsTheJobToTheDeadSet() {
        FixedBackOff twice = new FixedBackOff(300, 2);
        assertThat(OutcomeRecorder.delayAfter(twice, 1)).isEqualTo(300);
        assertThat(OutcomeRecorder.delayAfter(twice, 2)).isEqualTo(300);
        assertThat(OutcomeRecorder.delayAfter(twice, 3)).isEqualTo(BackOffExecution.STOP);

        org.springframework.util.backoff.ExponentialBackOff spring = new org.springframework.util.backoff.ExponentialBackOff(100, 3);
        assertThat(OutcomeRecorder.delayAfter(spring, 1)).isEqualTo(100);
        assertThat(OutcomeRecorder.delayAfter(spring, 3)).isEqualTo(900);
        // a job far past any sensible count still gets an answer in bounded time
        assertThat(OutcomeRecorder.delayAfter(new FixedBackOff(5, FixedBackOff.UNLIMITED_ATTEMPTS), Integer.MAX_VALUE))
                .isEqualTo(5);
    }
}
