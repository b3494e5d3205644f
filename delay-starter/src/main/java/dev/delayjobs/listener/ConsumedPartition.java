package dev.delayjobs.listener;

/**
 * One partition of a queue this instance consumes (the queue itself when it is not partitioned).
 *
 * @param queue the queue's name
 * @param name the partition's name, which the Redis layer keys it by
 * @param index its index in the queue's layout
 * @param count how many partitions the queue has
 */
record ConsumedPartition(String queue, String name, int index, int count) {

    /** What each of {@code partitions} partitions gets of {@code total} split between them: rounded up, so none is left out. */
    static int share(int total, int partitions) {
        return (total + partitions - 1) / partitions;
    }

    /** "Queue 'orders'", or "Queue 'orders' (partition 'orders#1')", to start a log line with. */
    String describe() {
        return count == 1 ? "Queue '" + queue + "'" : "Queue '" + queue + "' (partition '" + name + "')";
    }
}
