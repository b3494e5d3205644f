package dev.delayjobs.queue;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Partition {@code index} of the {@code count} partitions of a queue: the unit Redis keeps
 * together (every key of a partition carries its name as hash tag, so lives in one Cluster slot).
 * A queue that is not partitioned is its own single partition, named as the queue.
 *
 * <p>This is the one place partitions are named. Partition {@code i} of {@code n} is named
 * {@code <queue>#<i>}, or {@code <queue>#<i>.<k>} with the smallest {@code k} that puts its hash
 * slot in the middle half of the {@code i}-th of {@code n} equal slot ranges. A cluster whose
 * masters own equal slot ranges (what {@code redis-cli --cluster create} makes) then serves the
 * partitions of a queue laid out in as many partitions as it has masters, or a multiple, from
 * different masters. The names depend on the queue and {@code n} only, so every instance computes
 * the same; they are part of the data format (key names) and must not change.
 */
public final class Partition {

    /** The most partitions a queue may have. */
    public static final int MAX_COUNT = 128;

    private static final int SLOTS = 16384;

    private final QueueName queue;
    private final int index;
    private final int count;
    private final String name;

    private Partition(QueueName queue, int index, int count) {
        this.queue = Objects.requireNonNull(queue, "queue");
        this.index = index;
        this.count = count;
        this.name = nameOf(queue.value(), index, count);
    }

    /**
     * Partition {@code index} of {@code count}.
     * @throws IllegalArgumentException when {@code count} is not 1 to {@value #MAX_COUNT} or {@code index} not below it
     */
    public static Partition of(QueueName queue, int index, int count) {
        checkCount(count);
        if (index < 0 || index >= count) {
            throw new IllegalArgumentException("partition index must be between 0 and " + (count - 1) + ", was " + index);
        }
        return new Partition(queue, index, count);
    }

    /** The {@code count} partitions of {@code queue}, in order. */
    public static List<Partition> all(QueueName queue, int count) {
        checkCount(count);
        List<Partition> partitions = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            partitions.add(new Partition(queue, i, count));
        }
        return List.copyOf(partitions);
    }

    private static void checkCount(int count) {
        if (count < 1 || count > MAX_COUNT) {
            throw new IllegalArgumentException("partitions must be between 1 and " + MAX_COUNT + ", was " + count);
        }
    }

    private static String nameOf(String queue, int index, int count) {
        if (count == 1) {
            return queue;
        }
        // the middle half of the range: slot ranges of unequal masters still rarely cut through it
        int from = (int) ((long) SLOTS * (4L * index + 1) / (4L * count));
        int to = (int) ((long) SLOTS * (4L * index + 3) / (4L * count));
        String name = queue + "#" + index;
        for (int k = 1; !inRange(ClusterSlot.of(tagOf(name)), from, to); k++) {
            name = queue + "#" + index + "." + k;
        }
        return name;
    }

    private static boolean inRange(int slot, int from, int to) {
        return slot >= from && slot < Math.max(to, from + 1);
    }

    private static String tagOf(String name) {
        return "{" + name + "}";
    }

    public QueueName queue() {
        return queue;
    }

    public int index() {
        return index;
    }

    /** How many partitions the queue has. */
    public int count() {
        return count;
    }

    /** The partition's name: the queue's when it is the only one, else {@code <queue>#<i>[.<k>]}. */
    public String name() {
        return name;
    }

    /** The hash tag every key of the partition carries: {@code {name}}. */
    public String hashTag() {
        return tagOf(name);
    }

    /** The Redis Cluster hash slot of every key of the partition. */
    public int slot() {
        return ClusterSlot.of(hashTag());
    }

    /** "Queue 'orders'", or "Queue 'orders' (partition 'orders#1')", to start a log line with. */
    public String describe() {
        return count == 1 ? "Queue '" + queue + "'" : "Queue '" + queue + "' (partition '" + name + "')";
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Partition p && p.queue.equals(queue) && p.index == index && p.count == count;
    }

    @Override
    public int hashCode() {
        return Objects.hash(queue, index, count);
    }

    @Override
    public String toString() {
        return name;
    }
}
