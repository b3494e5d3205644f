package dev.delayjobs.actuate;

import java.util.List;

/** A page of a queue's schedules; {@code next} is the cursor of the following page, {@code 0} after the last. */
public record SchedulesReport(String queue, List<ScheduleView> schedules, String next) {
}
