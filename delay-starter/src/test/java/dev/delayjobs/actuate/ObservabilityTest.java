package dev.delayjobs.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.JobInfo;
import dev.delayjobs.JobState;
import dev.delayjobs.test.Http;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import tools.jackson.databind.JsonNode;

/**
 * The endpoint, the health indicator and the metrics over HTTP, against real Redis, with jobs in
 * every state: delayed, ready (queue without a running consumer), running (a handler that blocks),
 * dead (a handler that fails), and a queue no handler of this instance consumes.
 */
class ObservabilityTest {

    static class Handlers {

        final CountDownLatch release = new CountDownLatch(1);
        final CountDownLatch blocked = new CountDownLatch(1);
        final AtomicBoolean failing = new AtomicBoolean(true);

        @DelayedHandler(queue = "orders", maxAttempts = "1")
        void orders(String command) throws InterruptedException {
            if (command.equals("block")) {
                blocked.countDown();
                release.await(60, TimeUnit.SECONDS);
            }
            if (command.startsWith("fail") && failing.get()) {
                throw new IllegalStateException("payment provider said no to " + command);
            }
        }

        @DelayedHandler(queue = "idle", autoStartup = "false")
        void idle(String command) {
        }

        @DelayedHandler(queue = "quiet")
        void quiet(String command) {
        }

        @DelayedHandler(queue = "repairs", maxAttempts = "1")
        void repairs(String command) {
            if (failing.get()) {
                throw new IllegalStateException("still broken: " + command);
            }
        }

        final CountDownLatch stalledRelease = new CountDownLatch(1);
        final CountDownLatch stalledBlocked = new CountDownLatch(1);

        @DelayedHandler(queue = "stalled")
        void stalled(String command) throws InterruptedException {
            stalledBlocked.countDown();
            stalledRelease.await(60, TimeUnit.SECONDS);
        }
    }

    static ConfigurableApplicationContext context;
    static Handlers handlers;
    static DelayPublisher publisher;
    static Http http;

    @BeforeAll
    static void start() {
        context = TestApps.runWeb(TestRedis.uniquePrefix(), List.of(Handlers.class),
                "management.endpoints.web.exposure.include=health,metrics,delayqueues",
                "management.endpoint.health.show-details=always",
                "management.endpoint.delayqueues.access=unrestricted",
                "delay.health.overdue-threshold=300ms",
                "delay.metrics.gauge-cache-ttl=0s",
                "delay.health.cache-ttl=0s");
        handlers = context.getBean(Handlers.class);
        publisher = context.getBean(DelayPublisher.class);
        http = new Http(context);

        publisher.publish("orders", "later-1", Duration.ofHours(1), "later-1");
        publisher.publish("orders", "later-2", Duration.ofHours(2), "later-2");
        publisher.publish("orders", "fail-1", Duration.ZERO, "fail-1");
        publisher.publish("orders", "fail-2", Duration.ZERO, "fail-2");
        await().atMost(Duration.ofSeconds(10)).until(() -> state("orders", "fail-1") == JobState.DEAD
                && state("orders", "fail-2") == JobState.DEAD);
        publisher.publish("orders", "block", Duration.ZERO, "block");
        awaitLatch(handlers.blocked);
        publisher.publish("idle", "a", Duration.ZERO);
        publisher.publish("idle", "b", Duration.ZERO);
        publisher.publish("idle", "c", Duration.ZERO);
        publisher.publish("no-handler-here", "x", Duration.ofMinutes(5));
    }

    @AfterAll
    static void stop() {
        handlers.release.countDown();
        handlers.stalledRelease.countDown();
        context.close();
    }

    @Test
    void endpointListsEveryQueueWithItsCountsConsumersAndTotals() {
        Http.Response response = http.get("/actuator/delayqueues");
        assertThat(response.status()).isEqualTo(200);
        JsonNode queues = response.json().get("queues");
        assertThat(queues.propertyNames()).contains("orders", "idle", "no-handler-here");

        JsonNode orders = queues.get("orders");
        assertThat(orders.get("delayed").asLong()).isEqualTo(2);
        assertThat(orders.get("running").asLong()).isEqualTo(1);
        assertThat(orders.get("dead").asLong()).isEqualTo(2);
        assertThat(orders.get("ready").asLong()).isZero();
        assertThat(orders.get("nextDueAt").asString()).isNotBlank();
        assertThat(orders.get("localHandler").asBoolean()).isTrue();
        assertThat(orders.get("consumers")).hasSize(1);
        assertThat(orders.get("consumers").get(0).get("workers").asInt()).isEqualTo(1);
        assertThat(orders.get("consumers").get(0).get("running").asLong()).isEqualTo(1);
        assertThat(orders.get("totals").get("published").asLong()).isEqualTo(5);
        assertThat(orders.get("totals").get("dead").asLong()).isEqualTo(2);

        JsonNode idle = queues.get("idle");
        assertThat(idle.get("ready").asLong()).isEqualTo(3);
        assertThat(idle.get("consumers")).isEmpty();
        assertThat(idle.get("oldestOverdueMillis").asLong()).isGreaterThanOrEqualTo(0);

        JsonNode orphan = queues.get("no-handler-here");
        assertThat(orphan.get("delayed").asLong()).isEqualTo(1);
        assertThat(orphan.get("localHandler").asBoolean()).isFalse();
    }

    @Test
    void queueDetailPagesTheDeadJobsNewestFirst() {
        Http.Response first = http.get("/actuator/delayqueues/orders?size=1");
        assertThat(first.status()).isEqualTo(200);
        JsonNode dead = first.json().get("dead");
        assertThat(dead.get("total").asLong()).isEqualTo(2);
        assertThat(dead.get("jobs")).hasSize(1);
        JsonNode newest = dead.get("jobs").get(0);
        assertThat(newest.get("id").asString()).isIn("fail-1", "fail-2");
        assertThat(newest.get("attempts").asInt()).isEqualTo(1);
        assertThat(newest.get("lastError").asString()).contains("payment provider said no to");
        assertThat(newest.get("diedAt").asString()).isNotBlank();
        assertThat(first.json().get("stats").get("dead").asLong()).isEqualTo(2);

        JsonNode second = http.get("/actuator/delayqueues/orders?page=1&size=1").json().get("dead").get("jobs");
        assertThat(second).hasSize(1);
        assertThat(second.get(0).get("id").asString()).isNotEqualTo(newest.get("id").asString());
    }

    @Test
    void deadJobPagesByNumberStopAtTheDepthLimitAndGoOnByCursor() {
        // a page deep in the dead set would make every partition read all the jobs above it
        Http.Response deep = http.get("/actuator/delayqueues/orders?page=2000&size=50");
        assertThat(deep.status()).isEqualTo(400);
        assertThat(deep.json().get("detail").asString()).contains("page 2000 of size 50").contains("1000")
                .contains("after=");
        assertThat(http.get("/actuator/delayqueues/orders?page=19&size=50").status()).isEqualTo(200);
        assertThat(http.get("/actuator/delayqueues/orders?page=20&size=50").status()).isEqualTo(400);

        JsonNode first = http.get("/actuator/delayqueues/orders?size=1").json().get("dead");
        assertThat(first.get("page").asInt()).isZero();
        String next = first.get("next").asString();
        assertThat(next).endsWith(":" + first.get("jobs").get(0).get("id").asString());
        JsonNode second = http.get("/actuator/delayqueues/orders?size=1&after=" + URLEncoder.encode(next,
                StandardCharsets.UTF_8)).json().get("dead");
        assertThat(second.get("page").isNull()).as("read by cursor, not by number").isTrue();
        assertThat(second.get("jobs")).hasSize(1);
        assertThat(List.of(first.get("jobs").get(0).get("id").asString(), second.get("jobs").get(0).get("id").asString()))
                .containsExactlyInAnyOrder("fail-1", "fail-2");
        JsonNode last = http.get("/actuator/delayqueues/orders?size=1&after=" + URLEncoder.encode(second.get("next")
                .asString(), StandardCharsets.UTF_8)).json().get("dead");
        assertThat(last.get("jobs")).isEmpty();
        assertThat(last.get("next").isNull()).as("no page after a page that is not full").isTrue();

        Http.Response both = http.get("/actuator/delayqueues/orders?page=0&after=" + URLEncoder.encode(next,
                StandardCharsets.UTF_8));
        assertThat(both.status()).isEqualTo(400);
        assertThat(both.json().get("detail").asString()).contains("either page or after");
        Http.Response garbled = http.get("/actuator/delayqueues/orders?after=yesterday");
        assertThat(garbled.status()).isEqualTo(400);
        assertThat(garbled.json().get("detail").asString()).contains("<died at millis>:<job id>");
    }

    @Test
    void unknownQueueIs404AndBadRequestsAre400() {
        assertThat(http.get("/actuator/delayqueues/no-such-queue").status()).isEqualTo(404);
        assertThat(http.post("/actuator/delayqueues/no-such-queue/cancel", "{\"id\":\"x\"}").status()).isEqualTo(404);
        assertThat(http.get("/actuator/delayqueues/orders?size=0").status()).isEqualTo(400);
        assertThat(http.post("/actuator/delayqueues/orders/explode", "{}").status()).isEqualTo(400);
        assertThat(http.post("/actuator/delayqueues/orders/cancel", "{}").status()).isEqualTo(400);
        assertThat(http.post("/actuator/delayqueues/orders/cancel", "{\"id\":\"" + "x".repeat(300) + "\"}").status())
                .as("an id no publish accepts").isEqualTo(400);
        assertThat(http.post("/actuator/delayqueues/orders/requeue-dead", "{\"id\":\"  \"}").status()).isEqualTo(400);
    }

    @Test
    void writeOperationsCancelDeleteAndRequeueAsClaimed() {
        publisher.publish("repairs", "to-cancel", Duration.ofHours(1), "cancel-me");
        Http.Response cancel = http.post("/actuator/delayqueues/repairs/cancel", "{\"id\":\"cancel-me\"}");
        assertThat(cancel.status()).isEqualTo(200);
        assertThat(cancel.json().get("affected").asLong()).isEqualTo(1);
        assertThat(publisher.find("repairs", "cancel-me")).isEmpty();

        publisher.publish("repairs", "fail-3", Duration.ZERO, "fail-3");
        publisher.publish("repairs", "fail-4", Duration.ZERO, "fail-4");
        await().atMost(Duration.ofSeconds(10)).until(() -> state("repairs", "fail-4") == JobState.DEAD
                && state("repairs", "fail-3") == JobState.DEAD);

        Http.Response delete = http.post("/actuator/delayqueues/repairs/delete-dead", "{\"id\":\"fail-4\"}");
        assertThat(delete.json().get("affected").asLong()).isEqualTo(1);
        assertThat(publisher.find("repairs", "fail-4")).isEmpty();

        handlers.failing.set(false);
        Http.Response nothingSaid = http.post("/actuator/delayqueues/repairs/requeue-dead", "{}");
        assertThat(nothingSaid.status()).as("an empty body acts on no dead job").isEqualTo(400);
        assertThat(http.post("/actuator/delayqueues/repairs/delete-dead", "{}").status()).isEqualTo(400);
        assertThat(http.post("/actuator/delayqueues/repairs/delete-dead", "{\"all\": false}").status()).isEqualTo(400);
        assertThat(publisher.find("repairs", "fail-3").orElseThrow().state()).isEqualTo(JobState.DEAD);
        Http.Response requeue = http.post("/actuator/delayqueues/repairs/requeue-dead", "{\"all\": true}");
        assertThat(requeue.json().get("affected").asLong()).as("all dead jobs of the queue").isEqualTo(1);
        await().atMost(Duration.ofSeconds(10)).until(() -> publisher.find("repairs", "fail-3").isEmpty());
        assertThat(http.get("/actuator/delayqueues/repairs").json().get("stats").get("dead").asLong()).isZero();
        assertThat(http.get("/actuator/delayqueues/repairs").json().get("stats").get("totals").get("completed").asLong())
                .isEqualTo(1);
    }

    @Test
    void healthIsDownWhileAQueueWithConsumersHasAJobOverdueAndShowsTheQueue() {
        // one worker, blocked: a due job behind it waits longer than the 300 ms threshold
        publisher.publish("stalled", "first", Duration.ZERO);
        awaitLatch(handlers.stalledBlocked);
        publisher.publish("stalled", "waiting", Duration.ZERO, "stuck-behind");
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> http.get("/actuator/health/delayQueues").status() == 503);
            JsonNode health = http.get("/actuator/health/delayQueues").json();
            assertThat(health.get("status").asString()).isEqualTo("DOWN");
            assertThat(health.get("details").get("overdue").get("stalled").asLong()).isGreaterThan(300);
            assertThat(health.get("details").get("overdue").has("idle")).as("no consumers, not stalled").isFalse();
            assertThat(health.get("details").get("overdue").has("orders")).as("nothing waits there").isFalse();
            assertThat(health.get("details").get("queues").get("stalled").get("consumers").asInt()).isEqualTo(1);
        }
        finally {
            assertThat(publisher.cancel("stalled", "stuck-behind")).isTrue();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> http.get("/actuator/health/delayQueues").status() == 200);
        assertThat(http.get("/actuator/health").json().get("components").get("delayQueues").get("status").asString())
                .isEqualTo("UP");
    }

    @Test
    void gaugesReportEachStateAndCountersAndTimersMoveWhenJobsFlow() {
        JsonNode delayed = http.get("/actuator/metrics/delay.queue.jobs?tag=queue:orders&tag=state:delayed").json();
        assertThat(delayed.get("measurements").get(0).get("value").asDouble()).isEqualTo(2.0);
        JsonNode ready = http.get("/actuator/metrics/delay.queue.jobs?tag=queue:idle&tag=state:ready").json();
        assertThat(ready.get("measurements").get(0).get("value").asDouble()).isEqualTo(3.0);
        JsonNode running = http.get("/actuator/metrics/delay.queue.jobs?tag=queue:orders&tag=state:running").json();
        assertThat(running.get("measurements").get(0).get("value").asDouble()).isEqualTo(1.0);
        assertThat(http.get("/actuator/metrics/delay.queue.jobs").json().get("availableTags").toString())
                .contains("delayed", "ready", "running", "dead");

        MeterRegistry registry = context.getBean(MeterRegistry.class);
        assertThat(registry.get("delay.jobs.published").tag("queue", "orders").counter().count()).isEqualTo(5);
        assertThat(registry.get("delay.jobs.dead").tag("queue", "orders").counter().count()).isGreaterThanOrEqualTo(2);
        assertThat(registry.get("delay.handler.duration").tag("queue", "orders").tag("outcome", "dead").timer().count())
                .isGreaterThanOrEqualTo(2);

        publisher.publish("idle", "later", Duration.ofHours(3));
        assertThat(registry.get("delay.jobs.published").tag("queue", "idle").counter().count()).isGreaterThanOrEqualTo(4);

        Timer lateness = registry.get("delay.jobs.lateness").tag("queue", "orders").timer();
        assertThat(lateness.count()).isGreaterThanOrEqualTo(3);
        assertThat(lateness.takeSnapshot().percentileValues()).hasSize(3);
        JsonNode latenessOverHttp = http.get("/actuator/metrics/delay.jobs.lateness?tag=queue:orders").json();
        assertThat(latenessOverHttp.get("measurements").toString()).contains("COUNT", "MAX");
        assertThat(registry.get("delay.jobs.completed").tag("queue", "idle").counter().count()).as("idle never ran").isZero();
    }

    @Test
    void aConsumedQueueHasItsMetersBeforeItsFirstJobAndConsumersAreCounted() {
        MeterRegistry registry = context.getBean(MeterRegistry.class);
        assertThat(registry.get("delay.queue.jobs").tag("queue", "quiet").tag("state", "ready").gauge().value()).isZero();
        assertThat(registry.get("delay.queue.consumers").tag("queue", "quiet").gauge().value()).isEqualTo(1.0);
        assertThat(registry.get("delay.queue.consumers").tag("queue", "idle").gauge().value()).as("not started").isZero();
    }

    private static JobState state(String queue, String id) {
        return publisher.find(queue, id).map(JobInfo::state).orElse(null);
    }

    private static void awaitLatch(CountDownLatch latch) {
        try {
            assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }
}
