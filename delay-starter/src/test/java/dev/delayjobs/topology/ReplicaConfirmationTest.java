package dev.delayjobs.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayQueueException;
import dev.delayjobs.JobState;
import dev.delayjobs.embeddedredis.RedisSentinelGroup;
import dev.delayjobs.embeddedredis.RedisServerProcess;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/**
 * {@code delay.publisher.confirm-replicas}: a publish returns once the replicas have the job, and
 * throws, saying so, when they do not confirm in time (Sentinel: a master and one replica).
 */
@Tag("slow")
@Tag("topology")
class ReplicaConfirmationTest {

    @Test
    void publishReturnsOnceTheReplicaHasTheJobAndThrowsWhenItDoesNotConfirm() {
        RedisSentinelGroup group = Topology.Servers.sentinel();
        try (ConfigurableApplicationContext app = TestApps.runOn(Topology.SENTINEL.springProperties(),
                TestRedis.uniquePrefix(), List.of(), "delay.publisher.confirm-replicas=1",
                "delay.publisher.confirm-timeout=500ms", "delay.queues.strict.confirm-replicas=2",
                "delay.queues.strict-split.confirm-replicas=2", "delay.queues.strict-split.partitions=2")) {
            DelayPublisher publisher = app.getBean(DelayPublisher.class);
            String confirmed = publisher.publish("orders", 1, Duration.ofHours(1));
            assertThat(publisher.find("orders", confirmed)).get().extracting(job -> job.state()).isEqualTo(JobState.DELAYED);

            assertThatThrownBy(() -> publisher.publish("strict", 2, Duration.ofHours(1), "strict-1"))
                    .as("two replicas asked for, one exists").isInstanceOf(DelayQueueException.class)
                    .hasMessageContaining("only 1 of 2 replica(s) confirmed them within 500 ms");
            assertThatThrownBy(() -> publisher.publish("strict-split", 2, Duration.ofHours(1), "strict-split-1"))
                    .as("the queue's setting holds in each of its partitions").isInstanceOf(DelayQueueException.class)
                    .hasMessageContaining("only 1 of 2 replica(s) confirmed them within 500 ms");

            RedisServerProcess replica = currentReplica(group);
            replica.pause();
            try {
                assertThatThrownBy(() -> publisher.publish("orders", 3, Duration.ofHours(1), "order-3"))
                        .isInstanceOf(DelayQueueException.class)
                        .hasMessageContaining("written on the master, but only 0 of 1 replica(s) confirmed them")
                        .hasMessageContaining("delay.publisher.confirm-replicas");
                assertThat(publisher.find("orders", "order-3")).as("on the master all the same").isPresent();
            }
            finally {
                replica.resume();
            }
            // the replica catches up, and confirms again
            assertThat(publisher.publish("orders", 4, Duration.ofHours(1), "order-4")).isEqualTo("order-4");
        }
    }

    private static RedisServerProcess currentReplica(RedisSentinelGroup group) {
        List<RedisServerProcess> nodes = new ArrayList<>(group.replicas());
        nodes.add(group.initialMaster());
        int master = group.currentMasterPort();
        return nodes.stream().filter(n -> n.port() != master).findFirst().orElseThrow();
    }
}
