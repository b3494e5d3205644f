package dev.delayjobs.partition;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.zip.CRC32;

import dev.delayjobs.queue.Partition;
import dev.delayjobs.queue.QueueName;

/**
 * How one queue is spread over Redis: its partitions, in order (one partition, named as the queue,
 * when it is not partitioned). A job's partition follows from its id alone, so a job published
 * with a business key is always found, cancelled and rescheduled in the same partition.
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

    /** The index of the partition that holds job {@code id}: CRC-32 of its UTF-8 bytes, modulo the count. */
    public int indexOf(String id) {
        if (all.size() == 1) {
            return 0;
        }
        CRC32 crc = new CRC32();
        crc.update(id.getBytes(StandardCharsets.UTF_8));
        return (int) (crc.getValue() % all.size());
    }

    /** The partition that holds job {@code id}. */
    public Partition partitionOf(String id) {
        return all.get(indexOf(id));
    }
}
