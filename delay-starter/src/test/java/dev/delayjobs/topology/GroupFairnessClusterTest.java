package dev.delayjobs.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.PublishRequest;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/**
 * Fairness between groups on the 3-master cluster, end to end: group B's jobs, due just after group
 * A's flood fell due, start while the flood is still being handled, not after it (the transfer, the
 * claims and the prefetch buffer each serve the groups in turn).
 */
@Tag("slow")
@Tag("topology")
class GroupFairnessClusterTest {

    static final int FLOOD = 2_000;
    static final int SMALL = 10;
    /** Payloads in the order their handlers started. */
    static final Queue<String> started = new ConcurrentLinkedQueue<>();

    static class Handler {

        @DelayedHandler(queue = "merchants", concurrency = "2")
        void handle(DelayedJob<String> job) throws InterruptedException {
            started.add(job.payload());
            // the flood takes at least FLOOD / 2 ms to handle, whatever the machine's speed
            Thread.sleep(1);
        }
    }

    @Test
    void aSmallGroupDueAfterAFloodStartsWhileTheFloodIsHandled() {
        started.clear();
        try (ConfigurableApplicationContext app = TestApps.runOn(Topology.CLUSTER.springProperties(), TestRedis.uniquePrefix(),
                List.of(Handler.class))) {
            DelayPublisher publisher = app.getBean(DelayPublisher.class);
            Instant floodDue = Instant.now().plusSeconds(3);
            List<PublishRequest> flood = new ArrayList<>();
            for (int i = 0; i < FLOOD; i++) {
                flood.add(PublishRequest.of("a/" + i).group("a").at(floodDue));
            }
            List<PublishRequest> small = new ArrayList<>();
            for (int i = 0; i < SMALL; i++) {
                small.add(PublishRequest.of("b/" + i).group("b").at(floodDue.plusMillis(300)));
            }
            publisher.publishAll("merchants", flood);
            publisher.publishAll("merchants", small);
            assertThat(Instant.now()).as("published before the flood fell due").isBefore(floodDue);

            await().atMost(Duration.ofSeconds(60)).until(() -> started.size() >= FLOOD + SMALL);

            List<String> order = List.copyOf(started);
            int lastSmall = 0;
            for (int i = 0; i < order.size(); i++) {
                if (order.get(i).startsWith("b/")) {
                    lastSmall = i;
                }
            }
            // with 2 workers and 1 ms a job, at most about 600 of the flood start in the 300 ms before
            // B is due; behind the whole flood (one FIFO, oldest due moved first) B would start last
            assertThat(lastSmall).as("start position of B's last job among " + order.size()).isLessThan(FLOOD / 2);
            assertThat(order).as("each job once").doesNotHaveDuplicates();
        }
    }
}
