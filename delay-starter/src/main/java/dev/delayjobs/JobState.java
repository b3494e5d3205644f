package dev.delayjobs;

/** Where a job is in its life. */
public enum JobState {
    /** Waiting for its due time (also between retries). */
    DELAYED,
    /** Due, waiting for a consumer. */
    READY,
    /**
     * Taken by a consumer ahead of its workers ({@code delay.consumer.prefetch}), waiting in its buffer
     * for a free worker: no attempt counted yet. It can no longer be cancelled, rescheduled or
     * replaced (a keyed publish waits as its successor, as for a RUNNING job); the queue's counts
     * show it as ready. If the consumer stops, it goes back to ready.
     */
    PREFETCHED,
    /** Started by a consumer and not yet acknowledged. */
    RUNNING,
    /** Exhausted its attempts or could not be read; kept in the dead set for inspection. */
    DEAD
}
