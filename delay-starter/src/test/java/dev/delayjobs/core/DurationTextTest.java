package dev.delayjobs.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;

class DurationTextTest {

    @Test
    void writesTheLargestExactUnitAsPropertiesDo() {
        assertThat(DurationText.of(Duration.ofMillis(500))).isEqualTo("500ms");
        assertThat(DurationText.of(Duration.ofMillis(1500))).isEqualTo("1500ms");
        assertThat(DurationText.of(Duration.ofSeconds(90))).isEqualTo("90s");
        assertThat(DurationText.of(Duration.ofMinutes(30))).isEqualTo("30m");
        assertThat(DurationText.of(Duration.ofHours(2))).isEqualTo("2h");
        assertThat(DurationText.of(Duration.ofDays(7))).isEqualTo("7d");
        assertThat(DurationText.of(Duration.ofNanos(1500))).isEqualTo("1500ns");
        assertThat(DurationText.of(Duration.ZERO)).isEqualTo("0ms");
        assertThat(DurationText.of(null)).isEqualTo("none");
    }
}
