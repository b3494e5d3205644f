package dev.delayjobs.partition;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.zip.CRC32;

import org.jspecify.annotations.Nullable;

import dev.delayjobs.queue.Partition;
import dev.delayjobs.queue.QueueName;

/**
 * How one queue is spread over Redis: its partitions, in order (one partition, named as the queue,
 * when it is not partitioned). A job's partition follows from its group when it has one, so that
 * all of a group's jobs, its ready list and its held count live in one slot and
 * {@code group-concurrency} holds for the whole queue; from its id otherwise. A job published
 * with a business key is therefore found first in its key's partition; a grouped one is found by
 * asking the others ({@link PartitionedQueues}).
 *
 * @param queue the queue's name
 * @param all its partitions, in order
 */
public record QueueLayout(QueueName queue, List<Partition> all) {

    public QueueLayout {
        all = List.copyOf(all);
    }

    /** {@code queue} laid out in {@code count} partitions. */
    public static QueueLayout of(QueueName queue, int count) {
        return new QueueLayout(queue, Partition.all(queue, count));
    }

    /** How many partitions the queue has. */
    public int size() {
        return all.size();
    }

    /** The index of the partition of an ungrouped job {@code id}: CRC-32 of its UTF-8 bytes, modulo the count. */
    public int indexOf(String id) {
        return indexOf(id, null);
    }

    /**
     * The index of the partition that job {@code id} of {@code group} is published to: CRC-32 of the
     * group's UTF-8 bytes (of the id's, for the default group: {@code group} null), modulo the count.
     */
    public int indexOf(String id, @Nullable String group) {
        if (all.size() == 1) {
            return 0;
        }
        CRC32 crc = new CRC32();
        crc.update((group != null ? group : id).getBytes(StandardCharsets.UTF_8));
        return (int) (crc.getValue() % all.size());
    }

    /** The partition of an ungrouped job {@code id}: where a lookup by id asks first. */
    public Partition partitionOf(String id) {
        return all.get(indexOf(id));
    }

    /**
     * The partition that holds the queue's schedules, and the jobs of their ticks whatever partition
     * their ids map to (see docs/schedules.md): the first, so that the timer reads one partition per
     * queue and a tick's job is written in the same call as the schedule's next tick.
     */
    public Partition schedules() {
        return all.get(0);
    }
}
