package dev.delayjobs.redis;

/** What a publish did with one job. */
public enum PublishOutcome {
    /** A new job was stored. */
    CREATED,
    /** A job with the same id existed and was replaced. */
    REPLACED,
    /** A job with the same id existed and was kept. */
    KEPT_EXISTING
}
