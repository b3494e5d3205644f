package dev.delayjobs;

/** Where a job is in its life. */
public enum JobState {
    /** Waiting for its due time (also between retries). */
    DELAYED,
    /** Due, waiting for a consumer. */
    READY,
    /** Taken by a consumer and not yet acknowledged. */
    RUNNING,
    /** Exhausted its attempts or could not be read; kept in the dead set for inspection. */
    DEAD
}
