package dev.delayjobs.benchmark;

/** A delayed-job implementation under test; its consumers report every delivery to {@link Lateness}. */
interface Engine {

    /** Payloads are this many bytes as stored (the JSON for the starter, the string for RDelayedQueue). */
    int PAYLOAD_BYTES = 100;

    String name();

    /** Publishes one job with one call, waiting for the reply. */
    void publishOne(long delayMs);

    /** Publishes many jobs the fastest way the engine offers (the starter's batch API; pipelined offers for RDelayedQueue). */
    void publishMany(long[] delaysMs);

    /** Stops consuming and releases what the engine holds. */
    void close();
}
