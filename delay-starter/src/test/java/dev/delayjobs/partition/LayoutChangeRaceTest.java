package dev.delayjobs.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static dev.delayjobs.test.TestPartitions.names;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayQueueException;
import dev.delayjobs.redis.LayoutChangedException;
import dev.delayjobs.redis.NewJob;
import dev.delayjobs.redis.PublishOutcome;
import dev.delayjobs.redis.QueueLayoutStore;
import dev.delayjobs.redis.QueueStats;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;
import dev.delayjobs.queue.Partition;
import dev.delayjobs.queue.QueueName;

/**
 * A change of a queue's partition count against publishes still routed by the old count: a publish
 * that reaches an old partition while the change is under way is refused (or lands in a partition
 * of the new layout), never accepted into a partition nobody consumes afterwards; and a change
 * refused because the old layout still holds jobs leaves the queue as it was.
 */
class LayoutChangeRaceTest {

    private static final Duration HOUR = Duration.ofHours(1);

    @ParameterizedTest(name = "{0} -> {1} partitions")
    @CsvSource({ "1, 3", "3, 2" })
    void aPublishRoutedByTheOldCountDuringTheChangeIsRefusedAndNothingStrands(int old, int wanted) {
        String prefix = TestRedis.uniquePrefix();
        try (ConfigurableApplicationContext app = TestApps.run(prefix, List.of())) {
            RedisJobStore store = app.getBean(RedisJobStore.class);
            QueueLayoutStore layoutStore = new QueueLayoutStore(app.getBean(RedissonClient.class), store.prefix());
            if (old > 1) {
                new QueueLayouts(layoutStore, Map.of(QueueName.of("orders"), old), "old-consumer").declare(QueueName.of("orders"));
            }
            DelayPublisher publisher = app.getBean(DelayPublisher.class);
            assertThat(publisher.publish("orders", 0, HOUR, "before")).isEqualTo("before");
            assertThat(publisher.cancel("orders", "before")).isTrue(); // the publisher routes by the old count now

            List<Partition> oldPartitions = QueueLayout.of(QueueName.of("orders"), old).all();
            List<Partition> newPartitions = QueueLayout.of(QueueName.of("orders"), wanted).all();
            List<Object> rawOutcomes = new ArrayList<>();
            List<String> published = new ArrayList<>();
            List<DelayQueueException> refused = new ArrayList<>();
            QueueLayouts changing = new QueueLayouts(layoutStore, Map.of(QueueName.of("orders"), wanted), "new-consumer");
            // between the check of the old layout and the record of the new one
            changing.beforeRecord(() -> {
                for (Partition partition : oldPartitions) {
                    try {
                        rawOutcomes.add(store.publish(partition, List.of(new NewJob("raw-" + partition, true,
                                HOUR.toMillis(), false, "1"))));
                    }
                    catch (LayoutChangedException ex) {
                        rawOutcomes.add(ex);
                    }
                }
                for (int i = 0; i < 10; i++) {
                    try {
                        published.add(publisher.publish("orders", i, HOUR, "job-" + i));
                    }
                    catch (DelayQueueException ex) {
                        refused.add(ex);
                    }
                }
            });
            changing.declare(QueueName.of("orders"));

            assertThat(rawOutcomes).as("publishes routed by %d partitions while the queue is laid out anew", old)
                    .hasSize(old).allSatisfy(outcome -> assertThat(outcome).isInstanceOfSatisfying(
                            LayoutChangedException.class, ex -> assertThat(ex.partitions()).isEqualTo(wanted)));
            assertThat(refused).allSatisfy(ex -> assertThat(ex).hasMessageContaining("'orders'"));
            assertThat(published.size() + refused.size()).isEqualTo(10);
            for (Partition partition : oldPartitions) {
                if (!names(QueueLayout.of(QueueName.of("orders"), wanted)).contains(partition.name())) {
                    assertThat(waiting(store.stats(partition))).as("jobs stranded in %s, outside the new layout", partition)
                            .isZero();
                }
            }
            long inNewLayout = newPartitions.stream().mapToLong(p -> waiting(store.stats(p))).sum();
            assertThat(inNewLayout).as("every accepted publish is in a consumed partition").isEqualTo(published.size());
            assertThat(layoutStore.recorded(QueueName.of("orders"))).isEqualTo(wanted);
            // once laid out, publishing by the new count goes through
            assertThat(publisher.publish("orders", 1, HOUR, "after")).isEqualTo("after");
            assertThat(publisher.find("orders", "after")).isPresent();
        }
    }

    @Test
    void aChangeRefusedBecauseTheOldLayoutHoldsJobsLeavesTheQueueAsItWas() {
        String prefix = TestRedis.uniquePrefix();
        try (ConfigurableApplicationContext app = TestApps.run(prefix, List.of())) {
            RedisJobStore store = app.getBean(RedisJobStore.class);
            QueueLayoutStore layoutStore = new QueueLayoutStore(app.getBean(RedissonClient.class), store.prefix());
            new QueueLayouts(layoutStore, Map.of(QueueName.of("orders"), 3), "old-consumer").declare(QueueName.of("orders"));
            List<Partition> oldPartitions = QueueLayout.of(QueueName.of("orders"), 3).all();
            // the last partition holds a job: the first ones were checked (and closed) before it was found
            store.publish(oldPartitions.get(2), List.of(new NewJob("left", true, HOUR.toMillis(), false, "1")));

            QueueLayouts changing = new QueueLayouts(layoutStore, Map.of(QueueName.of("orders"), 2), "new-consumer");
            assertThatThrownBy(() -> changing.declare(QueueName.of("orders"))).isInstanceOf(PartitionLayoutException.class)
                    .hasMessageContaining("1 waiting or running job(s)");

            assertThat(layoutStore.recorded(QueueName.of("orders"))).isEqualTo(3);
            for (Partition partition : oldPartitions) {
                assertThat(store.publish(partition, List.of(new NewJob("again-" + partition, true, HOUR.toMillis(),
                        false, "1")))).as("a publish routed by the old count to %s", partition)
                        .containsExactly(PublishOutcome.CREATED);
            }
            // a publisher sent to the new layout meanwhile is sent back, never left in a partition nobody consumes
            for (Partition partition : QueueLayout.of(QueueName.of("orders"), 2).all()) {
                if (!names(QueueLayout.of(QueueName.of("orders"), 3)).contains(partition.name())) {
                    assertThatThrownBy(() -> store.publish(partition, List.of(new NewJob("lost", true, HOUR.toMillis(),
                            false, "1")))).isInstanceOfSatisfying(LayoutChangedException.class,
                                    ex -> assertThat(ex.partitions()).isEqualTo(3));
                }
            }
            DelayPublisher publisher = app.getBean(DelayPublisher.class);
            assertThat(publisher.publish("orders", 1, HOUR, "after")).isEqualTo("after");
            assertThat(publisher.find("orders", "after")).isPresent();
        }
    }

    private static long waiting(QueueStats stats) {
        return stats.delayed() + stats.ready() + stats.running() + stats.dead();
    }
}
