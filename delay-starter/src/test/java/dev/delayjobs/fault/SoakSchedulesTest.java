package dev.delayjobs.fault;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.delayjobs.fault.HandledLog.Handled;
import dev.delayjobs.fault.SoakSchedules.Schedule;
import dev.delayjobs.schedule.Misfire;
import dev.delayjobs.schedule.ScheduleSpec;

/**
 * The fault soak's schedule rules catch what they are for: fed a handlers' log with a tick missing,
 * a stray tick and a tick whose id names another instant, each rule reports it, and a clean log
 * (a tick in the dead set included) breaks none.
 */
class SoakSchedulesTest {

    private static final long ANCHOR = 1_700_000_000_000L;
    private static final long PERIOD = 1000;
    private static final String NAME = "tick-1s";

    private final SoakSchedules soak = SoakSchedules.checking(List.of(Schedule.fixedRate(NAME,
            ScheduleSpec.fixedRate(Duration.ofMillis(PERIOD), Misfire.FIRE_ALL), ANCHOR, PERIOD, ANCHOR - 900, ANCHOR - 800)),
            ANCHOR + 5 * PERIOD, ANCHOR + 5 * PERIOD + 100);

    /** Every tick from ANCHOR to the end handled once, but the last, which is dead. */
    private static List<Handled> clean() {
        List<Handled> log = new ArrayList<>();
        for (long t = ANCHOR; t < ANCHOR + 5 * PERIOD; t += PERIOD) {
            log.add(handled(NAME + "@" + t, t));
        }
        return log;
    }

    private static Handled handled(String id, long dueAt) {
        return new Handled(id, 1, dueAt + 3, dueAt, dueAt + 5, 42);
    }

    private static boolean dead(String id) {
        return id.equals(NAME + "@" + (ANCHOR + 5 * PERIOD));
    }

    @Test
    void aCleanLogBreaksNoRule() {
        assertThat(soak.check(clean(), SoakSchedulesTest::dead)).isEmpty();
    }

    @Test
    void aMissingTickIsReported() {
        List<Handled> log = clean();
        log.removeIf(h -> h.dueAt() == ANCHOR + 2 * PERIOD);
        assertThat(soak.check(log, SoakSchedulesTest::dead)).singleElement().asString()
                .startsWith("TICK-MISSED " + NAME + "@" + (ANCHOR + 2 * PERIOD));
        // and the dead one is missed too when it is not in the dead set
        assertThat(soak.check(clean(), id -> false)).singleElement().asString()
                .startsWith("TICK-MISSED " + NAME + "@" + (ANCHOR + 5 * PERIOD));
    }

    @Test
    void aStrayTickIsReported() {
        List<Handled> off = clean();
        off.add(handled(NAME + "@" + (ANCHOR + 1500), ANCHOR + 1500));
        assertThat(soak.check(off, SoakSchedulesTest::dead)).singleElement().asString()
                .startsWith("TICK-STRAY " + NAME + "@" + (ANCHOR + 1500));
        // on the series, but before the schedule was created or well after it was removed
        List<Handled> outside = clean();
        outside.add(handled(NAME + "@" + (ANCHOR - PERIOD), ANCHOR - PERIOD));
        outside.add(handled(NAME + "@" + (ANCHOR + 20 * PERIOD), ANCHOR + 20 * PERIOD));
        assertThat(soak.check(outside, SoakSchedulesTest::dead)).hasSize(2).allSatisfy(v -> assertThat(v).startsWith("TICK-STRAY"));
    }

    @Test
    void aTickWhoseIdNamesAnotherInstantIsReported() {
        List<Handled> log = clean();
        log.add(handled(NAME + "@" + (ANCHOR + 3 * PERIOD + 1), ANCHOR + 3 * PERIOD));
        assertThat(soak.check(log, SoakSchedulesTest::dead)).singleElement().asString()
                .startsWith("TICK-ID " + NAME + "@" + (ANCHOR + 3 * PERIOD + 1));
    }
}
