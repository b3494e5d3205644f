package dev.delayjobs.format;

import static dev.delayjobs.format.FixtureQueues.BRIDGED;
import static dev.delayjobs.format.FixtureQueues.FAILING;
import static dev.delayjobs.format.FixtureQueues.FUTURE;
import static dev.delayjobs.format.FixtureQueues.GROUPED;
import static dev.delayjobs.format.FixtureQueues.GROUP_A;
import static dev.delayjobs.format.FixtureQueues.GROUP_B;
import static dev.delayjobs.format.FixtureQueues.HELD;
import static dev.delayjobs.format.FixtureQueues.LIMITED;
import static dev.delayjobs.format.FixtureQueues.PARTS;
import static dev.delayjobs.format.FixtureQueues.PAUSED;
import static dev.delayjobs.format.FixtureQueues.PREFIX;
import static dev.delayjobs.format.FixtureQueues.RETRYING;
import static dev.delayjobs.format.FixtureQueues.WAITING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.json.JsonMapper;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayQueueControl;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.JobInfo;
import dev.delayjobs.JobState;
import dev.delayjobs.RateLimit;
import dev.delayjobs.actuate.DelayQueuesEndpoint;
import dev.delayjobs.actuate.DeadJobView;
import dev.delayjobs.embeddedredis.RedisServerProcess;
import dev.delayjobs.format.FixtureQueues.Item;
import dev.delayjobs.redis.DataFormat;
import dev.delayjobs.test.TestApps;

/**
 * This version reads the jobs that every released data format left in Redis: each fixture
 * ({@code data-format/format-<n>.json}, written by {@link DataFormatFixtures}) is loaded into a Redis
 * of its own, and an application of this version finds every job in its state with its payload,
 * cancels a waiting one, recovers what a dead consumer held, and handles every job, retried, dead,
 * partitioned, paused, rate-limited and bridged ones included. The assertions are about behaviour,
 * not about the records, so that the fixture of an older format keeps passing after the format
 * changes (docs/versioning.md).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class DataFormatFixturesTest {

    private static final String[] ENDPOINT = { "management.endpoints.web.exposure.include=delayqueues",
            "management.endpoint.delayqueues.access=unrestricted" };

    static RedisServerProcess server;
    static RedissonClient redisson;

    /** Every format up to this version's: a release keeps reading the jobs of the ones before it. */
    static IntStream formats() {
        return IntStream.rangeClosed(1, DataFormat.CURRENT);
    }

    @Configuration(proxyBeanMethods = false)
    static class PublisherOnly {
    }

    record Handled(String queue, String id, int attempt, String name) {
    }

    /** A handler for each of the fixture's queues: it succeeds and records what it got. */
    static class Handlers {

        final Queue<Handled> handled = new ConcurrentLinkedQueue<>();

        @DelayedHandler(queue = WAITING, concurrency = "2")
        void waiting(DelayedJob<Item> job) {
            record(job);
        }

        @DelayedHandler(queue = HELD, concurrency = "2")
        void held(DelayedJob<Item> job) {
            record(job);
        }

        @DelayedHandler(queue = FAILING)
        void failing(DelayedJob<Item> job) {
            record(job);
        }

        @DelayedHandler(queue = RETRYING)
        void retrying(DelayedJob<Item> job) {
            record(job);
        }

        @DelayedHandler(queue = PARTS, concurrency = "3")
        void parts(DelayedJob<Item> job) {
            record(job);
        }

        @DelayedHandler(queue = PAUSED)
        void paused(DelayedJob<Item> job) {
            record(job);
        }

        @DelayedHandler(queue = LIMITED)
        void limited(DelayedJob<Item> job) {
            record(job);
        }

        @DelayedHandler(queue = BRIDGED)
        void bridged(DelayedJob<Item> job) {
            record(job);
        }

        @DelayedHandler(queue = GROUPED, concurrency = "2")
        void grouped(DelayedJob<Item> job) {
            record(job);
        }

        private void record(DelayedJob<Item> job) {
            handled.add(new Handled(job.queue(), job.id(), job.attempt(), job.payload().name()));
        }

        List<Handled> of(String queue) {
            return handled.stream().filter(h -> h.queue().equals(queue)).toList();
        }

        List<String> names(String queue) {
            return of(queue).stream().map(Handled::name).toList();
        }
    }

    @BeforeAll
    static void startRedis() {
        server = RedisServerProcess.start();
        Config config = new Config();
        config.useSingleServer().setAddress("redis://" + server.address());
        redisson = Redisson.create(config);
    }

    @AfterAll
    static void stopRedis() {
        if (redisson != null) {
            redisson.shutdown();
        }
        if (server != null) {
            server.close();
        }
    }

    @ParameterizedTest(name = "format {0}")
    @MethodSource("formats")
    void theFixtureIsReadAsTheFormatItWasWrittenIn(int format) throws IOException {
        load(format);

        assertThat(new DataFormat(redisson, PREFIX).recordedOrCurrent()).isEqualTo(format);
    }

    @ParameterizedTest(name = "format {0}")
    @MethodSource("formats")
    void everyJobIsFoundInItsStateWithItsPayloadAndAWaitingOneCanBeCancelled(int format) throws IOException {
        load(format);
        try (ConfigurableApplicationContext app = TestApps.runWeb(server.host(), server.port(), PREFIX,
                List.of(PublisherOnly.class), FixtureQueues.properties(ENDPOINT))) {
            DelayPublisher publisher = app.getBean(DelayPublisher.class);

            for (String id : List.of("delayed-1", "delayed-2", "keyed-delayed")) {
                assertJob(publisher, WAITING, id, JobState.DELAYED, 0);
            }
            assertThat(publisher.find(WAITING, "delayed-1").orElseThrow().dueAt()).isEqualTo(FUTURE);
            for (String id : List.of("ready-1", "ready-2", "ready-3")) {
                assertJob(publisher, WAITING, id, JobState.READY, 0);
            }

            JobInfo running = assertJob(publisher, HELD, "held-running", JobState.RUNNING, 1);
            assertThat(running.successor()).as("the keyed publish that met it running").isNotNull();
            assertThat(running.successor().payloadJson()).isEqualTo(json("held-successor"));
            assertThat(running.successor().replacesJob()).isFalse();
            assertJob(publisher, HELD, "held-prefetched", JobState.PREFETCHED, 0);

            assertThat(assertJob(publisher, FAILING, "dead-retryable", JobState.DEAD, 1).lastError())
                    .contains("payment service answered 503 for dead-retryable");
            assertThat(assertJob(publisher, FAILING, "dead-non-retryable", JobState.DEAD, 1).lastError())
                    .contains("order dead-non-retryable does not exist");
            JobInfo retried = assertJob(publisher, RETRYING, "retried", JobState.DELAYED, 1);
            assertThat(retried.lastError()).contains("first attempt of retried failed");

            for (int i = 1; i <= 6; i++) {
                assertJob(publisher, PARTS, "part-" + i, JobState.READY, 0);
            }
            assertJob(publisher, PARTS, "part-delayed", JobState.DELAYED, 0);
            assertJob(publisher, PAUSED, "paused-1", JobState.READY, 0);
            assertJob(publisher, LIMITED, "limited-1", JobState.READY, 0);
            assertThat(assertJob(publisher, GROUPED, "grouped-a-1", JobState.RUNNING, 1).group()).isEqualTo(GROUP_A);
            assertThat(assertJob(publisher, GROUPED, "grouped-a-2", JobState.READY, 0).group()).isEqualTo(GROUP_A);
            assertThat(assertJob(publisher, GROUPED, "grouped-b-1", JobState.READY, 0).group()).isEqualTo(GROUP_B);
            assertThat(assertJob(publisher, GROUPED, "grouped-none", JobState.READY, 0).group()).isNull();
            assertThat(assertJob(publisher, GROUPED, "grouped-delayed", JobState.DELAYED, 0).group()).isEqualTo(GROUP_A);

            DelayQueueControl control = app.getBean(DelayQueueControl.class);
            assertThat(control.state(PAUSED).paused()).isTrue();
            assertThat(control.state(PAUSED).pausedAt()).isBefore(Instant.now());
            assertThat(control.state(LIMITED).rateLimit()).isEqualTo(RateLimit.parse(FixtureQueues.RATE_LIMIT));
            assertThat(control.state(BRIDGED).paused()).as("resumed after its element was adopted").isFalse();

            List<DeadJobView> dead = app.getBean(DelayQueuesEndpoint.class).queue(FAILING, null, null, null).dead().jobs();
            assertThat(dead).extracting(DeadJobView::id).containsExactlyInAnyOrder("dead-retryable", "dead-non-retryable");
            assertThat(dead).allSatisfy(job -> assertThat(job.diedAt()).isBefore(Instant.now()));
            assertThat(dead).as("records of releases before payload versions: version 1")
                    .extracting(DeadJobView::payloadVersion).containsOnly(1);

            assertThat(publisher.cancel(WAITING, "keyed-delayed")).isTrue();
            assertThat(publisher.find(WAITING, "keyed-delayed")).isEmpty();
            assertThat(publisher.cancel(HELD, "held-prefetched")).as("a held job is not cancelled").isFalse();
        }
    }

    @ParameterizedTest(name = "format {0}")
    @MethodSource("formats")
    void anApplicationOfThisVersionRecoversAndHandlesEveryJob(int format) throws IOException {
        load(format);
        try (ConfigurableApplicationContext app = TestApps.runWeb(server.host(), server.port(), PREFIX,
                List.of(Handlers.class), FixtureQueues.properties("delay.sweep-interval=200ms", ENDPOINT[0], ENDPOINT[1]))) {
            Handlers handlers = app.getBean(Handlers.class);
            DelayPublisher publisher = app.getBean(DelayPublisher.class);

            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                assertThat(handlers.names(WAITING)).containsExactlyInAnyOrder("ready-1", "ready-2", "ready-3");
                assertThat(handlers.names(PARTS)).containsExactlyInAnyOrder("part-1", "part-2", "part-3", "part-4",
                        "part-5", "part-6");
                assertThat(handlers.names(LIMITED)).containsExactly("limited-1");
                assertThat(handlers.names(BRIDGED)).containsExactlyInAnyOrder("legacy-adopted", "legacy-waiting");
                assertThat(handlers.names(HELD)).containsExactlyInAnyOrder("held-running", "held-prefetched",
                        "held-successor");
                assertThat(handlers.names(GROUPED)).containsExactlyInAnyOrder("grouped-a-1", "grouped-a-2", "grouped-b-1",
                        "grouped-none");
            });
            // the dead consumer's grouped job held its group (group-concurrency=1) until it was
            // recovered: the group's next job ran after its second run
            assertThat(handlers.of(GROUPED)).contains(new Handled(GROUPED, "grouped-a-1", 2, "grouped-a-1"));
            assertThat(handlers.names(GROUPED).indexOf("grouped-a-2")).as("a group's jobs one at a time, in order")
                    .isGreaterThan(handlers.names(GROUPED).indexOf("grouped-a-1"));
            assertThat(handlers.of(WAITING)).extracting(Handled::attempt).containsOnly(1);
            // the dead consumer's run counts: the recovered job's next run is its second
            assertThat(handlers.of(HELD)).containsExactlyInAnyOrder(
                    new Handled(HELD, "held-running", 2, "held-running"),
                    new Handled(HELD, "held-prefetched", 1, "held-prefetched"),
                    new Handled(HELD, "held-running", 1, "held-successor"));
            assertThat(handlers.names(HELD).indexOf("held-successor")).as("the successor runs after the job it waited for")
                    .isGreaterThan(handlers.names(HELD).indexOf("held-running"));
            assertThat(redisson.getScoredSortedSet("redisson_delay_queue_timeout:{" + FixtureQueues.LEGACY_LIST + "}")
                    .size()).as("the element due in 2100 still waits in Redisson's keys").isEqualTo(1);

            // still due in 2100, never handled
            assertJob(publisher, WAITING, "delayed-1", JobState.DELAYED, 0);
            assertJob(publisher, PARTS, "part-delayed", JobState.DELAYED, 0);
            assertJob(publisher, GROUPED, "grouped-delayed", JobState.DELAYED, 0);

            // the paused queue stayed paused while every other one ran
            assertJob(publisher, PAUSED, "paused-1", JobState.READY, 0);
            assertThat(handlers.of(PAUSED)).isEmpty();
            DelayQueueControl control = app.getBean(DelayQueueControl.class);
            assertThat(control.resume(PAUSED)).isTrue();
            await().atMost(Duration.ofSeconds(30)).until(() -> handlers.names(PAUSED).equals(List.of("paused-1")));

            // the dead jobs are requeued and handled
            DelayQueuesEndpoint endpoint = app.getBean(DelayQueuesEndpoint.class);
            assertThat(endpoint.queue(FAILING, null, null, null).dead().total()).isEqualTo(2);
            assertThat(endpoint.act(FAILING, "requeue-dead", null, true, null).affected()).isEqualTo(2);
            await().atMost(Duration.ofSeconds(30)).until(() -> handlers.of(FAILING).size() == 2);
            assertThat(handlers.names(FAILING)).containsExactlyInAnyOrder("dead-retryable", "dead-non-retryable");

            // the retried job, due now, runs its second attempt
            assertThat(publisher.reschedule(RETRYING, "retried", Instant.now())).isTrue();
            await().atMost(Duration.ofSeconds(30)).until(() -> handlers.of(RETRYING).size() == 1);
            assertThat(handlers.of(RETRYING)).containsExactly(new Handled(RETRYING, "retried", 2, "retried"));

            await().atMost(Duration.ofSeconds(10)).until(() -> publisher.find(HELD, "held-running").isEmpty()
                    && publisher.find(FAILING, "dead-retryable").isEmpty());
        }
    }

    private static JobInfo assertJob(DelayPublisher publisher, String queue, String id, JobState state, int attempts) {
        JobInfo job = publisher.find(queue, id).orElseThrow(() -> new AssertionError(queue + "/" + id + " not found"));
        assertThat(job.state()).as(queue + "/" + id).isEqualTo(state);
        assertThat(job.attempts()).as(queue + "/" + id + " attempts").isEqualTo(attempts);
        assertThat(job.payloadJson()).as(queue + "/" + id + " payload").isEqualTo(json(id));
        return job;
    }

    private static String json(String name) {
        return "{\"name\":\"" + name + "\"}";
    }

    /** Loads the fixture of {@code format} into the test's Redis, emptied first. */
    @SuppressWarnings("unchecked")
    private static void load(int format) throws IOException {
        redisson.getKeys().flushall();
        String resource = "/data-format/format-" + format + ".json";
        try (InputStream in = DataFormatFixturesTest.class.getResourceAsStream(resource)) {
            assertThat(in).as("fixture " + resource + " (every released format keeps its fixture)").isNotNull();
            Map<String, Object> fixture = JsonMapper.builder().build().readValue(in, Map.class);
            assertThat(fixture.get("prefix")).isEqualTo(PREFIX);
            RedisDump.write(redisson, (Map<String, Object>) fixture.get("keys"));
        }
    }
}
