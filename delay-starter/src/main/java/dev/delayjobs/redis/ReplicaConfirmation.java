package dev.delayjobs.redis;

import java.time.Duration;

/**
 * How many replicas must confirm a publish before it returns ({@code WAIT} after the script, on
 * the same connection), and how long to wait for them. Redis replication is asynchronous: a job
 * the master acknowledged and lost in a failover before any replica had it is gone; a confirmed one
 * is on at least {@code replicas} replicas.
 *
 * @param replicas replicas that must confirm; 0 waits for none
 * @param timeout longest wait for them
 */
public record ReplicaConfirmation(int replicas, Duration timeout) {

    /** No wait: the master's acknowledgement is enough. */
    public static final ReplicaConfirmation NONE = new ReplicaConfirmation(0, Duration.ZERO);

    public ReplicaConfirmation {
        if (replicas < 0) {
            throw new IllegalArgumentException("replicas must be zero or positive, was " + replicas);
        }
        if (replicas > 0 && (timeout == null || timeout.isZero() || timeout.isNegative())) {
            throw new IllegalArgumentException("timeout must be positive, was " + timeout);
        }
    }
}
