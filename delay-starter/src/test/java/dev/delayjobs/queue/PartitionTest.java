package dev.delayjobs.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * Partition names are part of the data format (the hash tags of every key of a partitioned queue):
 * the names below are what earlier releases wrote, and must stay what this one derives.
 */
class PartitionTest {

    private static final QueueName ORDERS = QueueName.of("orders");

    @Test
    void derivesTheNamesEarlierReleasesWrote() {
        assertThat(names(ORDERS, 1)).containsExactly("orders");
        assertThat(names(ORDERS, 2)).containsExactly("orders#0.3", "orders#1.2");
        assertThat(names(ORDERS, 3)).containsExactly("orders#0.3", "orders#1.11", "orders#2");
        assertThat(names(ORDERS, 4)).containsExactly("orders#0.22", "orders#1.1", "orders#2.22", "orders#3.1");
        assertThat(names(ORDERS, 7)).containsExactly("orders#0.40", "orders#1.10", "orders#2.21", "orders#3.32",
                "orders#4.11", "orders#5.6", "orders#6.3");
        QueueName spread = QueueName.of("spread");
        assertThat(names(spread, 2)).containsExactly("spread#0.1", "spread#1.4");
        assertThat(names(spread, 4)).containsExactly("spread#0", "spread#1", "spread#2", "spread#3");
        // every count up to the most, as one fingerprint of the names the previous naming code derived
        int fingerprint = 0;
        for (int n = 1; n <= Partition.MAX_COUNT; n++) {
            for (String name : names(ORDERS, n)) {
                fingerprint = 31 * fingerprint + name.hashCode();
            }
        }
        assertThat(fingerprint).isEqualTo(-1496916266);
    }

    @Test
    void eachPartitionSitsInTheMiddleOfItsShareOfTheSlotRange() {
        for (int n : new int[] { 2, 3, 6, 16, 128 }) {
            for (Partition p : Partition.all(ORDERS, n)) {
                int from = 16384 * (4 * p.index() + 1) / (4 * n);
                int to = Math.max(16384 * (4 * p.index() + 3) / (4 * n), from + 1);
                assertThat(p.slot()).as(p.name()).isBetween(from, to - 1);
                assertThat(p.slot()).isEqualTo(ClusterSlot.of(p.hashTag())).isEqualTo(ClusterSlot.of("delay:" + p.hashTag() + ":jobs"));
            }
        }
    }

    @Test
    void oneByIndexIsTheSameAsInTheWholeLayout() {
        List<Partition> all = Partition.all(ORDERS, 5);
        for (int i = 0; i < 5; i++) {
            Partition one = Partition.of(ORDERS, i, 5);
            assertThat(one).isEqualTo(all.get(i)).hasSameHashCodeAs(all.get(i));
            assertThat(one.name()).isEqualTo(all.get(i).name());
            assertThat(one.describe()).isEqualTo("Queue 'orders' (partition '" + one.name() + "')");
        }
        assertThat(Partition.of(ORDERS, 0, 1)).isEqualTo(ORDERS.whole()).isNotEqualTo(Partition.of(ORDERS, 0, 2));
        assertThat(ORDERS.whole().hashTag()).isEqualTo("{orders}");
    }

    @Test
    void refusesCountsAndIndexesOutOfRange() {
        assertThatThrownBy(() -> Partition.all(ORDERS, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("partitions must be between 1 and 128, was 0");
        assertThatThrownBy(() -> Partition.all(ORDERS, 129)).hasMessage("partitions must be between 1 and 128, was 129");
        assertThatThrownBy(() -> Partition.of(ORDERS, 3, 3)).hasMessage("partition index must be between 0 and 2, was 3");
        assertThatThrownBy(() -> Partition.of(ORDERS, -1, 3)).isInstanceOf(IllegalArgumentException.class);
    }

    private static List<String> names(QueueName queue, int count) {
        return Partition.all(queue, count).stream().map(Partition::name).toList();
    }
}
