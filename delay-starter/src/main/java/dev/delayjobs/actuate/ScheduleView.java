package dev.delayjobs.actuate;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

import dev.delayjobs.schedule.DelaySchedules;

/**
 * A schedule: its spec as stored ({@code c:<cron>@<zone>} or {@code r:<ms>}, then the misfire and
 * overlap policies; null when this release cannot read it, and the schedule is parked), next tick,
 * paused, how its last tick's job ended, when a running application last declared it (null: created
 * at run time) and whether none has for 10 minutes (undeclared: it ticks until removed).
 */
public record ScheduleView(String name, @Nullable String spec, @Nullable Instant nextTick, boolean paused,
        DelaySchedules.@Nullable LastOutcome lastOutcome, @Nullable Instant lastDeclared, boolean undeclared) {
}
