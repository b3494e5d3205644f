/**
 * Recurring schedules (see docs/schedules.md). The API: {@link dev.delayjobs.schedule.DelaySchedules}
 * (with its records), {@link dev.delayjobs.schedule.ScheduleSpec}, {@link dev.delayjobs.schedule.Misfire}
 * and {@link dev.delayjobs.schedule.Overlap}; the build checks them against the API baseline
 * (docs/versioning.md). The other public types ({@code ScheduleTimer}, {@code RedisDelaySchedules},
 * {@code RecurringAnnotationBeanPostProcessor}) are internal, public only for the auto-configuration
 * and the test module, and may change in any release.
 */
package dev.delayjobs.schedule;
