package dev.delayjobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.delayjobs.core.DurationText;

/** RateLimit writes its window itself (the API depends on nothing internal), the way the starter writes durations. */
class RateLimitTextTest {

    @Test
    void writesTheWindowInTheLargestExactUnit() {
        assertThat(RateLimit.parse("100/1s")).hasToString("100/1s");
        assertThat(RateLimit.parse("5/500ms")).hasToString("5/500ms");
        assertThat(RateLimit.parse("6000/1m")).hasToString("6000/1m");
        assertThat(RateLimit.parse("1/PT1H")).hasToString("1/1h");
        assertThat(RateLimit.parse("1/1500ms")).hasToString("1/1500ms");
        assertThat(RateLimit.parse("1/90s")).hasToString("1/90s");
    }

    @Test
    void namesAWindowOutOfRangeAsTheStarterWritesDurations() {
        for (Duration bad : new Duration[] { Duration.ofMillis(5), Duration.ofDays(2), Duration.ofNanos(10_000_001),
                Duration.ofDays(40_000), Duration.ofMillis(-20), Duration.ZERO, Duration.ofNanos(20_000_500) }) {
            assertThatThrownBy(() -> new RateLimit(1, bad)).as(bad.toString()).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageEndingWith("was " + DurationText.of(bad));
        }
    }
}
