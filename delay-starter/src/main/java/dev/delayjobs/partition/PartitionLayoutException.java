package dev.delayjobs.partition;

import dev.delayjobs.DelayQueueException;

/**
 * The partition count configured for a queue differs from the one its jobs are laid out in, and
 * changing it now would strand jobs or consumers: startup stops with what to do.
 */
public final class PartitionLayoutException extends DelayQueueException {

    private final String action;

    PartitionLayoutException(String description, String action) {
        super(description);
        this.action = action;
    }

    /** What the operator can do about it. */
    public String action() {
        return action;
    }
}
