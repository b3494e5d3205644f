package dev.delayjobs.test;

import java.util.List;

import dev.delayjobs.partition.QueueLayout;
import dev.delayjobs.queue.Partition;
import dev.delayjobs.queue.QueueName;

/** Short forms of the partitions tests name: an unpartitioned queue's one partition, a layout's names. */
public final class TestPartitions {

    private TestPartitions() {
    }

    /** The unpartitioned queue {@code queue}, as its one partition (named as the queue). */
    public static Partition whole(String queue) {
        return QueueName.of(queue).whole();
    }

    /** The names of {@code layout}'s partitions, in order (what their keys carry). */
    public static List<String> names(QueueLayout layout) {
        return layout.all().stream().map(Partition::name).toList();
    }
}
