package dev.delayjobs.topology;

import static dev.delayjobs.test.ClaimRequests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static dev.delayjobs.test.TestPartitions.whole;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.redisson.api.RedissonClient;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayQueueControl;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.JobInfo;
import dev.delayjobs.JobState;
import dev.delayjobs.PublishRequest;
import dev.delayjobs.actuate.DelayQueuesEndpoint;
import dev.delayjobs.actuate.DelayQueuesHealthIndicator;
import dev.delayjobs.listener.ListenerContainer;
import dev.delayjobs.listener.ListenerContainerRegistry;
import dev.delayjobs.redis.NewJob;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.store.StoredJob;
import dev.delayjobs.test.Recorder;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Delivery, the job life cycle, recovery and observability on a Redis Cluster (3 masters, 3
 * replicas) and on Sentinel (a master, a replica, 3 sentinels), with the client Spring Boot's
 * properties give: Redisson's defaults, which read from replicas.
 */
@Tag("slow")
@Tag("topology")
class TopologyTest {

    static class Handlers {

        final Recorder recorder = new Recorder();
        static volatile CountDownLatch hold = new CountDownLatch(0);

        @DelayedHandler(queue = "orders", concurrency = "4")
        void orders(DelayedJob<Integer> job) {
            recorder.record(job.id(), job.dueAt(), job.attempt(), job.payload());
        }

        @DelayedHandler(queue = "mails", concurrency = "4")
        void mails(DelayedJob<Integer> job) {
            recorder.record(job.id(), job.dueAt(), job.attempt(), job.payload());
        }

        @DelayedHandler(queue = "refunds", concurrency = "4")
        void refunds(DelayedJob<Integer> job) throws InterruptedException {
            hold.await(30, TimeUnit.SECONDS);
            recorder.record(job.id(), job.dueAt(), job.attempt(), job.payload());
        }
    }

    static class RecoveringHandler {

        final Recorder recorder = new Recorder();

        @DelayedHandler(queue = "recovered", concurrency = "2")
        void handle(DelayedJob<Integer> job) {
            recorder.record(job.id(), job.dueAt(), job.attempt(), job.payload());
        }
    }

    @ParameterizedTest
    @EnumSource(Topology.class)
    void jobsOfThreeQueuesOnTwoInstancesAreEachHandledOnceAndNoneEarly(Topology topology) {
        Handlers.hold = new CountDownLatch(0);
        String prefix = TestRedis.uniquePrefix();
        try (ConfigurableApplicationContext first = TestApps.runOn(topology.springProperties(), prefix, List.of(Handlers.class));
                ConfigurableApplicationContext second = TestApps.runOn(topology.springProperties(), prefix,
                        List.of(Handlers.class))) {
            DelayPublisher publisher = first.getBean(DelayPublisher.class);
            Random random = new Random(11);
            List<String> ids = new ArrayList<>();
            for (String queue : List.of("orders", "mails", "refunds")) {
                List<PublishRequest> requests = new ArrayList<>();
                for (int i = 0; i < 300; i++) {
                    requests.add(PublishRequest.of(i).delay(Duration.ofMillis(random.nextInt(1500))).key(queue + "-" + i));
                }
                ids.addAll(publisher.publishAll(queue, requests));
            }
            Recorder a = first.getBean(Handlers.class).recorder;
            Recorder b = second.getBean(Handlers.class).recorder;
            await().atMost(Duration.ofSeconds(60)).until(() -> a.total() + b.total() >= 900);

            Recorder.assertEachHandledOnceAndNoneEarly(ids, a, b);
        }
    }

    /** Each find right after a change sees the change, though Redisson reads from replicas. */
    @ParameterizedTest
    @EnumSource(Topology.class)
    void everyFindAfterAChangeSeesItWithReplicaReads(Topology topology) throws Exception {
        Handlers.hold = new CountDownLatch(1);
        try (ConfigurableApplicationContext app = TestApps.runOn(topology.springProperties(), TestRedis.uniquePrefix(),
                List.of(Handlers.class))) {
            RedissonClient redisson = app.getBean(RedissonClient.class);
            assertThat(topology == Topology.CLUSTER ? redisson.getConfig().isClusterConfig()
                    : redisson.getConfig().isSentinelConfig()).as("the client runs in " + topology + " mode").isTrue();
            assertThat(redisson.getConfig().toYAML()).as("Redisson's default read mode").contains("readMode: \"SLAVE\"");
            DelayPublisher publisher = app.getBean(DelayPublisher.class);
            for (int i = 0; i < 100; i++) {
                String id = publisher.publish("orders", i, Duration.ofHours(1));
                assertThat(publisher.find("orders", id)).get().extracting(JobInfo::state).isEqualTo(JobState.DELAYED);
                Instant later = Instant.now().plus(Duration.ofHours(2));
                assertThat(publisher.reschedule("orders", id, later)).isTrue();
                assertThat(publisher.find("orders", id).orElseThrow().dueAt()).isEqualTo(later.truncatedTo(ChronoUnit.MILLIS));
                assertThat(publisher.cancel("orders", id)).isTrue();
                assertThat(publisher.find("orders", id)).as("cancelled " + i).isEmpty();
            }

            // READY: a queue nobody consumes; RUNNING: a handler that holds its job; DEAD: an unreadable payload
            String ready = publisher.publish("nobody-consumes", 1, Duration.ZERO);
            await().atMost(Duration.ofSeconds(10)).until(() -> publisher.find("nobody-consumes", ready).orElseThrow().state(),
                    state -> state == JobState.READY || state == JobState.DELAYED);
            String running = publisher.publish("refunds", 7, Duration.ZERO);
            await().atMost(Duration.ofSeconds(10)).until(() -> publisher.find("refunds", running).orElseThrow().state()
                    == JobState.RUNNING);
            String dead = publisher.publish("mails", "not a number", Duration.ZERO);
            await().atMost(Duration.ofSeconds(10)).until(() -> publisher.find("mails", dead).map(JobInfo::state)
                    .orElse(null) == JobState.DEAD);
            assertThat(publisher.cancel("refunds", running)).as("a running job is not cancelled").isFalse();
            Handlers.hold.countDown();
            await().atMost(Duration.ofSeconds(10)).until(() -> publisher.find("refunds", running).isEmpty());
        }
    }

    @ParameterizedTest
    @EnumSource(Topology.class)
    void jobsOfAnInstanceThatStoppedHeartbeatingAreRecovered(Topology topology) {
        String prefix = TestRedis.uniquePrefix();
        try (ConfigurableApplicationContext app = TestApps.runOn(topology.springProperties(), prefix,
                List.of(RecoveringHandler.class), "delay.queues.recovered.auto-startup=false",
                "delay.sweep-interval=300ms")) {
            RedisJobStore store = app.getBean(RedisJobStore.class);
            for (int i = 1; i <= 5; i++) {
                store.publish(whole("recovered"), List.of(new NewJob("job-" + i, true, 0, false, Integer.toString(i))));
            }
            // an instance that claimed three jobs and died: its lease of 1 s runs out unrenewed
            List<StoredJob> held = store.partition(whole("recovered")).claim(request("ghost", 3, Duration.ofSeconds(1), 1)).jobs();
            assertThat(held).hasSize(3);

            ListenerContainer container = app.getBean(ListenerContainerRegistry.class).getContainer("recovered").orElseThrow();
            container.start();
            Recorder recorder = app.getBean(RecoveringHandler.class).recorder;
            await().atMost(Duration.ofSeconds(20)).until(() -> recorder.total() == 5);
            assertThat(recorder.counts()).hasSize(5).allSatisfy((id, count) -> assertThat(count).isEqualTo(1));
            assertThat(recorder.deliveries()).filteredOn(d -> held.stream().anyMatch(h -> h.id().equals(d.id())))
                    .as("the ghost's jobs, on their second attempt").allSatisfy(d -> assertThat(d.attempt()).isEqualTo(2));
        }
    }

    @ParameterizedTest
    @EnumSource(Topology.class)
    void endpointHealthAndMetricsShowTheQueues(Topology topology) {
        Handlers.hold = new CountDownLatch(0);
        try (ConfigurableApplicationContext app = TestApps.runOn(topology.springProperties(), TestRedis.uniquePrefix(),
                List.of(Handlers.class), "management.endpoints.web.exposure.include=delayqueues",
                "delay.metrics.gauge-cache-ttl=0ms", "delay.health.cache-ttl=0ms")) {
            DelayPublisher publisher = app.getBean(DelayPublisher.class);
            publisher.publish("orders", 1, Duration.ofHours(1));
            publisher.publish("orders", 2, Duration.ofHours(1));
            app.getBean(DelayQueueControl.class).pause("mails");

            DelayQueuesEndpoint.QueuesReport report = app.getBean(DelayQueuesEndpoint.class).queues();
            assertThat(report.queues()).containsKeys("orders", "mails", "refunds");
            assertThat(report.queues().get("orders").delayed()).isEqualTo(2);
            assertThat(report.queues().get("orders").consumers()).hasSize(1);
            assertThat(report.queues().get("mails").paused()).isTrue();
            assertThat(app.getBean(DelayQueuesHealthIndicator.class).health().getStatus()).isEqualTo(Status.UP);
            assertThat(app.getBean(MeterRegistry.class).get("delay.queue.jobs").tag("queue", "orders").tag("state", "delayed")
                    .gauge().value()).isEqualTo(2.0);
        }
    }
}
