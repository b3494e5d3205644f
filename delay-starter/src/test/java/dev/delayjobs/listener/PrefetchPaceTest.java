package dev.delayjobs.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;

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
}
