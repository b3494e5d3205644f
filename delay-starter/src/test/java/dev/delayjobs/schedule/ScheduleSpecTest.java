package dev.delayjobs.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.scheduling.support.CronExpression;

/** Next-tick arithmetic, without Redis: cron across DST nights in two zones, fixed rates, stored text. */
class ScheduleSpecTest {

    static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
    static final ZoneId NEW_YORK = ZoneId.of("America/New_York");

    @Test
    void springForwardNightInBerlinHasNoHalfPastTwoTick() {
        // 2026-03-29: 02:00 CET -> 03:00 CEST; 02:30 does not exist that night, and Spring skips it
        List<ZonedDateTime> ticks = ticks("0 30 2 * * *", BERLIN, ZonedDateTime.of(2026, 3, 28, 0, 0, 0, 0, BERLIN), 3);
        assertThat(ticks).extracting(ZonedDateTime::toLocalDateTime).containsExactly(
                LocalDateTime.of(2026, 3, 28, 2, 30), LocalDateTime.of(2026, 3, 30, 2, 30), LocalDateTime.of(2026, 3, 31, 2, 30));
        assertSameAsSpring("0 30 2 * * *", BERLIN, ZonedDateTime.of(2026, 3, 28, 0, 0, 0, 0, BERLIN), 3);
    }

    @Test
    void fallBackNightInBerlinTicksAtBothHalfPastTwos() {
        // 2026-10-25: 03:00 CEST -> 02:00 CET; 02:30 happens twice, and Spring ticks at each
        List<ZonedDateTime> ticks = ticks("0 30 2 * * *", BERLIN, ZonedDateTime.of(2026, 10, 24, 12, 0, 0, 0, BERLIN), 3);
        assertThat(ticks).extracting(ZonedDateTime::toLocalDateTime).containsExactly(
                LocalDateTime.of(2026, 10, 25, 2, 30), LocalDateTime.of(2026, 10, 25, 2, 30), LocalDateTime.of(2026, 10, 26, 2, 30));
        assertThat(ticks.get(0).getOffset().getTotalSeconds()).as("the first 02:30, summer time").isEqualTo(7200);
        assertThat(ticks.get(1).getOffset().getTotalSeconds()).as("the second 02:30, winter time").isEqualTo(3600);
        assertSameAsSpring("0 30 2 * * *", BERLIN, ZonedDateTime.of(2026, 10, 24, 12, 0, 0, 0, BERLIN), 3);
    }

    @Test
    void dstNightsInNewYorkMatchSpringsCronExpression() {
        // 2026-03-08 02:00 -> 03:00; 2026-11-01 02:00 -> 01:00 (01:30 happens twice)
        assertSameAsSpring("0 30 2 * * *", NEW_YORK, ZonedDateTime.of(2026, 3, 7, 0, 0, 0, 0, NEW_YORK), 3);
        assertSameAsSpring("0 30 1 * * *", NEW_YORK, ZonedDateTime.of(2026, 10, 31, 0, 0, 0, 0, NEW_YORK), 3);
        assertSameAsSpring("0 */20 * * * *", NEW_YORK, ZonedDateTime.of(2026, 11, 1, 0, 0, 0, 0, NEW_YORK), 12);
        List<ZonedDateTime> fallBack = ticks("0 30 1 * * *", NEW_YORK, ZonedDateTime.of(2026, 10, 31, 12, 0, 0, 0, NEW_YORK), 2);
        assertThat(fallBack).extracting(ZonedDateTime::toLocalDateTime).containsExactly(
                LocalDateTime.of(2026, 11, 1, 1, 30), LocalDateTime.of(2026, 11, 1, 1, 30));
    }

    @Test
    void fixedRateIsArithmeticAndKeepsItsPhaseAfterAGap() {
        ScheduleSpec spec = ScheduleSpec.fixedRate(Duration.ofSeconds(10), Misfire.FIRE_ONE);
        Instant tick = Instant.parse("2026-01-01T00:00:00Z");
        assertThat(spec.next(tick)).isEqualTo(tick.plusSeconds(10));
        assertThat(spec.nextAfter(tick, tick.plusSeconds(95))).isEqualTo(tick.plusSeconds(100));
        assertThat(spec.nextAfter(tick, tick.plusSeconds(100))).as("strictly after now").isEqualTo(tick.plusSeconds(110));
    }

    @Test
    void storedTextReadsBackAndBadInputIsNamed() {
        ScheduleSpec cron = ScheduleSpec.cron("0 0 2 * * MON", BERLIN, Misfire.FIRE_ALL);
        assertThat(ScheduleSpec.parse(cron.text())).isEqualTo(cron);
        ScheduleSpec rate = ScheduleSpec.fixedRate(Duration.ofMillis(1500), Misfire.FIRE_NONE);
        assertThat(rate.text()).isEqualTo("r:1500;m:FIRE_NONE");
        assertThat(ScheduleSpec.parse(rate.text())).isEqualTo(rate);
        assertThatThrownBy(() -> ScheduleSpec.cron("0 0 25 * * *", BERLIN, Misfire.FIRE_ONE))
                .hasMessageContaining("cron '0 0 25 * * *'");
        assertThatThrownBy(() -> ScheduleSpec.fixedRate(Duration.ofMillis(10), Misfire.FIRE_ONE))
                .hasMessageContaining("fixedRate must be at least 100 ms");
        assertThatThrownBy(() -> ScheduleSpec.parse("x:1;m:FIRE_ONE")).hasMessageContaining("not a schedule spec");
    }

    private static List<ZonedDateTime> ticks(String cron, ZoneId zone, ZonedDateTime from, int n) {
        ScheduleSpec spec = ScheduleSpec.cron(cron, zone, Misfire.FIRE_ONE);
        List<ZonedDateTime> out = new ArrayList<>();
        Instant at = from.toInstant();
        for (int i = 0; i < n; i++) {
            at = spec.next(at);
            out.add(at.atZone(zone));
        }
        return out;
    }

    /** The instants match what Spring's CronExpression (as @Scheduled(cron, zone) uses it) gives. */
    private static void assertSameAsSpring(String cron, ZoneId zone, ZonedDateTime from, int n) {
        CronExpression spring = CronExpression.parse(cron);
        List<Instant> expected = new ArrayList<>();
        ZonedDateTime at = from;
        for (int i = 0; i < n; i++) {
            at = spring.next(at);
            expected.add(at.toInstant());
        }
        assertThat(ticks(cron, zone, from, n)).extracting(ZonedDateTime::toInstant).isEqualTo(expected);
    }
}
