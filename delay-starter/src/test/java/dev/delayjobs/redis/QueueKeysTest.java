package dev.delayjobs.redis;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import dev.delayjobs.queue.Partition;
import dev.delayjobs.queue.QueueName;

/** Keys derived from a partition are the key names Redis holds (docs/architecture.md, Redis data model). */
class QueueKeysTest {

    @Test
    void anUnpartitionedQueueKeysByItsName() {
        QueueKeys k = new QueueKeys("delay", QueueName.of("orders").whole());
        assertThat(k.jobs()).isEqualTo("delay:{orders}:jobs");
        assertThat(k.claims()).isEqualTo("delay:{orders}:claims");
        assertThat(k.delayed()).isEqualTo("delay:{orders}:delayed");
        assertThat(k.ready()).isEqualTo("delay:{orders}:ready");
        assertThat(k.active("i-1")).isEqualTo("delay:{orders}:active:i-1");
        assertThat(k.control()).isEqualTo("delay:{orders}:control");
        assertThat(k.claimFences()).isEqualTo("delay:{orders}:fences");
        assertThat(k.forgottenFences()).isEqualTo("delay:{orders}:fences-forgotten");
        assertThat(k.controlChannel()).isEqualTo("delay:{orders}:control-changed");
        assertThat(k.wakeChannel()).isEqualTo("delay:{orders}:wake");
        assertThat(k).isEqualTo(new QueueKeys("delay", "orders"));
    }

    @Test
    void aPartitionKeysByItsNameAsHashTagAllInItsSlot() {
        Partition p = Partition.of(QueueName.of("orders"), 1, 3);
        QueueKeys k = new QueueKeys("app", p);
        assertThat(k.jobs()).isEqualTo("app:{orders#1.11}:jobs");
        assertThat(k.dead()).isEqualTo("app:{orders#1.11}:dead");
        for (String key : new String[] { k.jobs(), k.dead(), k.stats(), k.rateLog(), k.request(RequestMemo.request(k)),
                k.request(RequestMemo.claimRequest()) }) {
            assertThat(dev.delayjobs.queue.ClusterSlot.of(key)).as(key).isEqualTo(p.slot());
        }
        assertThat(QueueKeys.layouts("app")).isEqualTo("app:partitions");
        assertThat(QueueKeys.registry("app")).isEqualTo("app:queues");
    }
}
