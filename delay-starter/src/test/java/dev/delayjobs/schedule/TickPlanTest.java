package dev.delayjobs.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;

import org.junit.jupiter.api.Test;

/** What the timer passes to tick.lua for a due tick, and the misfire policies after downtime. */
class TickPlanTest {

    static final Instant TICK = Instant.parse("2026-06-01T10:00:00Z");

    @Test
    void aTickOnTimeFiresAtItsInstantAndTheNextFollowsIt() {
        ScheduleSpec spec = ScheduleSpec.fixedRate(Duration.ofMinutes(1), Misfire.FIRE_NONE);
        assertThat(TickPlan.of(spec, TICK, TICK.minusSeconds(2))).isEqualTo(new TickPlan(true, TICK, TICK.plusSeconds(60)));
        assertThat(TickPlan.of(spec, TICK, TICK.plusSeconds(4))).as("late, within the grace").isEqualTo(
                new TickPlan(true, TICK, TICK.plusSeconds(60)));
    }

    @Test
    void afterDowntimeFireOneFiresTheFirstMissedTickOnceThenTheFirstAfterNow() {
        ScheduleSpec spec = ScheduleSpec.fixedRate(Duration.ofMinutes(1), Misfire.FIRE_ONE);
        Instant now = TICK.plus(Duration.ofMinutes(10)).plusSeconds(30);
        assertThat(TickPlan.of(spec, TICK, now)).isEqualTo(new TickPlan(true, TICK, TICK.plus(Duration.ofMinutes(11))));
    }

    @Test
    void afterDowntimeFireAllFiresEveryMissedTickOneAfterAnother() {
        ScheduleSpec spec = ScheduleSpec.fixedRate(Duration.ofMinutes(1), Misfire.FIRE_ALL);
        Instant now = TICK.plus(Duration.ofMinutes(3)).plusSeconds(30);
        Instant tick = TICK;
        int fired = 0;
        while (tick.isBefore(now)) {
            TickPlan plan = TickPlan.of(spec, tick, now);
            assertThat(plan.fire()).isTrue();
            assertThat(plan.fireAt()).isEqualTo(tick);
            tick = plan.next();
            fired++;
        }
        assertThat(fired).as("10:00, 10:01, 10:02, 10:03").isEqualTo(4);
    }

    @Test
    void afterDowntimeFireNoneSkipsTheMissedTicks() {
        ScheduleSpec spec = ScheduleSpec.cron("0 0 * * * *", ZoneId.of("UTC"), Misfire.FIRE_NONE);
        Instant now = TICK.plus(Duration.ofHours(5)).plusSeconds(1);
        assertThat(TickPlan.of(spec, TICK, now)).isEqualTo(new TickPlan(false, TICK, TICK.plus(Duration.ofHours(6))));
    }
}
