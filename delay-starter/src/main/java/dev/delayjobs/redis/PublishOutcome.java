package dev.delayjobs.redis;

/** What a publish did with one job. */
public enum PublishOutcome {
    /** A new job was stored. */
    CREATED,
    /** A job with the same id existed and was replaced. */
    REPLACED,
    /** A job with the same id existed and was kept (or the successor waiting for it, see below). */
    KEPT_EXISTING,
    /**
     * A consumer held the job with the same id (RUNNING or PREFETCHED): the job was stored as its
     * successor, which takes the key when the held job is acked or buried (and, when it replaces,
     * when the held job is retried), or replaced the successor waiting already.
     */
    QUEUED_AS_SUCCESSOR
}
