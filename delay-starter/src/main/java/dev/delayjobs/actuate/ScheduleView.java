package dev.delayjobs.actuate;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/** A schedule: its spec as stored ({@code c:<cron>@<zone>} or {@code r:<ms>}, then the misfire policy). */
public record ScheduleView(String name, @Nullable String spec, @Nullable Instant nextTick, boolean paused) {
}
