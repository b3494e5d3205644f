package dev.delayjobs.schedule;

/** What the ticks missed while no instance ran the schedule timer become (see docs/schedules.md). */
public enum Misfire {
    /** One job, for the first missed tick; then the first tick after now. */
    FIRE_ONE,
    /** A job for every missed tick, oldest first. */
    FIRE_ALL,
    /** No job for the missed ticks; the next tick is the first after now. */
    FIRE_NONE
}
