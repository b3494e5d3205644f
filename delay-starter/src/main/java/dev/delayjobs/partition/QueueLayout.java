package dev.delayjobs.partition;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.zip.CRC32;

/**
 * How one queue is spread over Redis: its partitions' names, in order (one partition, named as the
 * queue, when it is not partitioned). A job's partition follows from its id alone, so a job
 * published with a business key is always found, cancelled and rescheduled in the same partition.
 *
 * @param queue the queue's name
 * @param partitions the names of its partitions, which the Redis layer turns into hash tags
 */
public record QueueLayout(String queue, List<String> partitions) {

    public QueueLayout {
        partitions = List.copyOf(partitions);
    }

    /** How many partitions the queue has. */
    public int size() {
        return partitions.size();
    }

    /** The index of the partition that holds job {@code id}: CRC-32 of its UTF-8 bytes, modulo the count. */
    public int indexOf(String id) {
        if (partitions.size() == 1) {
            return 0;
        }
        CRC32 crc = new CRC32();
        crc.update(id.getBytes(StandardCharsets.UTF_8));
        return (int) (crc.getValue() % partitions.size());
    }

    /** The name of the partition that holds job {@code id}. */
    public String partitionOf(String id) {
        return partitions.get(indexOf(id));
    }
}
