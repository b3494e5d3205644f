package dev.delayjobs.schedule;

/** What a tick does while the job of the schedule's previous tick has not ended (see docs/schedules.md). */
public enum Overlap {
    /** The tick is a job of its own, whatever the previous tick's job does (the default). */
    RUN,
    /**
     * The tick is skipped, recorded as {@code skipped}, while the previous tick's job waits, runs or
     * waits for a retry; the next tick comes all the same. Such a schedule's tick is published at its
     * instant rather than ahead of it, so its job starts up to one timer period (500 ms) later.
     */
    SKIP
}
