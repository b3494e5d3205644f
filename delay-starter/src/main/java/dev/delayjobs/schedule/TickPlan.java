package dev.delayjobs.schedule;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * What to do with a schedule whose stored tick is due (within the lookahead): publish its job or
 * skip it (a misfire), and which tick comes next. Pure arithmetic; {@code tick.lua} applies it only
 * if the schedule still stands where it was read.
 *
 * @param fire   whether the tick's job is published
 * @param fireAt the job's due time (the tick)
 * @param next   the tick after, or null when the schedule has none
 */
record TickPlan(boolean fire, Instant fireAt, @Nullable Instant next) {

    /** A tick this much in the past when the timer finds it was missed (no instance ran the timer). */
    static final Duration MISSED_AFTER = Duration.ofSeconds(5);

    static TickPlan of(ScheduleSpec spec, Instant tick, Instant now) {
        boolean missed = tick.isBefore(now.minus(MISSED_AFTER));
        if (!missed) {
            return new TickPlan(true, tick, spec.next(tick));
        }
        return switch (spec.misfire()) {
            case FIRE_ALL -> new TickPlan(true, tick, spec.next(tick));
            case FIRE_ONE -> new TickPlan(true, tick, spec.nextAfter(tick, now));
            case FIRE_NONE -> new TickPlan(false, tick, spec.nextAfter(tick, now));
        };
    }
}
