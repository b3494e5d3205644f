package dev.delayjobs.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

/** The buffer's target: fixed when configured, else about 50 ms of the workers' recent pace. */
class PrefetchPaceTest {

    @Test
    void aConfiguredPrefetchIsKeptWhateverThePace() {
        PrefetchPace pace = PrefetchPace.fixed(5);
        for (int i = 0; i < 10_000; i++) {
            pace.started();
        }
        assertThat(pace.target()).isEqualTo(5);
        assertThat(pace.most()).isEqualTo(5);
        assertThat(PrefetchPace.fixed(0).target()).isZero();
    }

    @Test
    void withoutStartsThereIsNoBufferAndWithManyItGrowsUpToTheMost() {
        PrefetchPace pace = PrefetchPace.adaptive(1000);
        assertThat(pace.target()).as("no pace seen yet").isZero();

        // tens of thousands of starts in one measure: far more than the most in 50 ms
        for (int i = 0; i < 50_000; i++) {
            pace.started();
        }
        await().atMost(Duration.ofSeconds(2)).until(() -> pace.target() > 0);
        assertThat(pace.target()).isEqualTo(1000);

        // idle workers: each measure halves the pace until the buffer is gone
        await().atMost(Duration.ofSeconds(5)).until(() -> pace.target() == 0);
    }

    @Test
    void theTargetIsAboutFiftyMillisecondsOfThePace() {
        PrefetchPace pace = PrefetchPace.adaptive(1000);
        long from = System.nanoTime();
        for (int i = 0; i < 400; i++) {
            pace.started();
        }
        await().atMost(Duration.ofSeconds(2)).until(() -> pace.target() > 0);
        // (a little more than the time since the first start: the measure began when the pace was made)
        double seconds = (System.nanoTime() - from) / 1e9 + 0.01;
        // one measure, averaged with the pace before it (none): half of 400 starts over the time measured
        assertThat(pace.target()).isLessThanOrEqualTo((int) (400 / 2 / 0.1 * 0.05))
                .isGreaterThanOrEqualTo((int) (400 / 2 / seconds * 0.05));
    }

    @Test
    void aBacklogGetsItsBufferFromTheStartsBetweenFullClaimsBeforeAWindowIsMeasured() {
        AtomicLong clock = new AtomicLong(1_000_000_000L);
        PrefetchPace pace = PrefetchPace.adaptive(1000, clock::get);

        // a burst reaches an idle consumer: claims for its 8 free workers come back full
        pace.claimed(8, true);
        for (int i = 0; i < 40; i++) {
            pace.started();
        }
        clock.addAndGet(4_000_000L);
        pace.claimed(8, true);
        assertThat(pace.target()).as("4 ms of full claims: too short to measure").isZero();
        for (int i = 0; i < 40; i++) {
            pace.started();
        }
        clock.addAndGet(6_000_000L);
        pace.claimed(8, true);
        // 80 starts in 10 ms: 8,000 a second, 50 ms of which is 400 jobs; long before the first 100 ms window
        assertThat(pace.target()).isEqualTo(400);

        // the backlog is gone: a short claim leaves the target to the windows (none measured yet)
        pace.claimed(400, false);
        assertThat(pace.target()).isZero();
    }

    @Test
    void fullClaimsOfSlowHandlersGetNoBuffer() {
        AtomicLong clock = new AtomicLong(1_000_000_000L);
        PrefetchPace pace = PrefetchPace.adaptive(1000, clock::get);
        pace.claimed(8, true);
        for (int second = 0; second < 5; second++) {
            // 8 workers, 10 starts a second: a backlog, but one no buffer would shorten
            for (int i = 0; i < 10; i++) {
                pace.started();
            }
            clock.addAndGet(1_000_000_000L);
            pace.claimed(1, true);
        }
        assertThat(pace.target()).isZero();
    }

    @Test
    void aConfiguredPrefetchIgnoresFullClaims() {
        PrefetchPace pace = PrefetchPace.fixed(5);
        pace.claimed(5, true);
        for (int i = 0; i < 10_000; i++) {
            pace.started();
        }
        pace.claimed(5, true);
        assertThat(pace.target()).isEqualTo(5);
    }
}
