package dev.delayjobs.redis;

import dev.delayjobs.DelayQueueException;

/**
 * A publish reached a partition of a queue laid out in another number of partitions than the
 * publisher routed by: it stored nothing, and the publisher reads the layout again.
 */
public final class LayoutChangedException extends DelayQueueException {

    private final int partitions;

    LayoutChangedException(String queue, int partitions) {
        super("Queue '" + queue + "' is now laid out in " + partitions + " partition(s)");
        this.partitions = partitions;
    }

    /** The partition count the queue is laid out in now. */
    public int partitions() {
        return partitions;
    }
}
