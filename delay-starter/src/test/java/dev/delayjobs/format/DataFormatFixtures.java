package dev.delayjobs.format;

import static dev.delayjobs.format.FixtureQueues.BRIDGED;
import static dev.delayjobs.format.FixtureQueues.FAILING;
import static dev.delayjobs.format.FixtureQueues.FUTURE;
import static dev.delayjobs.format.FixtureQueues.GONE_INSTANCE;
import static dev.delayjobs.format.FixtureQueues.GROUPED;
import static dev.delayjobs.format.FixtureQueues.GROUP_A;
import static dev.delayjobs.format.FixtureQueues.GROUP_B;
import static dev.delayjobs.format.FixtureQueues.HELD;
import static dev.delayjobs.format.FixtureQueues.LEGACY_LIST;
import static dev.delayjobs.format.FixtureQueues.LIMITED;
import static dev.delayjobs.format.FixtureQueues.PARTS;
import static dev.delayjobs.format.FixtureQueues.PAST;
import static dev.delayjobs.format.FixtureQueues.PAUSED;
import static dev.delayjobs.format.FixtureQueues.PREFIX;
import static dev.delayjobs.format.FixtureQueues.RETRYING;
import static dev.delayjobs.format.FixtureQueues.WAITING;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.redisson.Redisson;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RedissonClient;
import org.redisson.api.options.KeysScanOptions;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayQueueControl;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.JobState;
import dev.delayjobs.NonRetryableJobException;
import dev.delayjobs.PublishRequest;
import dev.delayjobs.RateLimit;
import dev.delayjobs.embeddedredis.RedisServerProcess;
import dev.delayjobs.format.FixtureQueues.Item;
import dev.delayjobs.redis.DataFormat;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.timer.QueueWatchdog;

/**
 * Writes the data-format fixture of this version: the raw Redis contents that applications of this
 * version leave behind in every state a job can be in, as {@code
 * src/test/resources/data-format/format-<DataFormat.CURRENT>.json}, which
 * {@link DataFormatFixturesTest} (and the tests of every later version) load into a fresh Redis.
 * Regenerate it with (from the repository root):
 *
 * <pre>
 * ./mvnw -B -o -pl delay-starter -am test -Dtest=DataFormatFixtures -Ddelay.fixtures.write=true \
 *     -Dsurefire.failIfNoSpecifiedTests=false -Dmaven.javadoc.skip -Djapicmp.skip
 * </pre>
 *
 * Only a release that changes the data format writes a new file (with the new number); the files of
 * the formats before it stay as they are. It starts a Redis of its own and real applications of the
 * starter on it, which publish, fail, pause, bridge and crash as an application would.
 */
@EnabledIfSystemProperty(named = "delay.fixtures.write", matches = "true")
class DataFormatFixtures {

    /** Under the module's directory, which surefire names {@code basedir} (and runs in). */
    static final Path DIRECTORY = Path.of(System.getProperty("basedir", "."), "src", "test", "resources", "data-format");

    @Configuration(proxyBeanMethods = false)
    static class PublisherOnly {
    }

    /** Fails every job of {@code failing} (max-attempts 1: they die) and the first attempt of {@code retrying}. */
    static class FailingHandlers {

        @DelayedHandler(queue = FAILING)
        void fail(Item item) {
            if (item.name().contains("non-retryable")) {
                throw new NonRetryableJobException("order " + item.name() + " does not exist");
            }
            throw new IllegalStateException("payment service answered 503 for " + item.name());
        }

        @DelayedHandler(queue = RETRYING)
        void failFirst(DelayedJob<Item> job) {
            if (job.attempt() == 1) {
                throw new IllegalStateException("first attempt of " + job.payload().name() + " failed");
            }
        }
    }

    /** The bridged queue's handler; the queue is paused while this application runs, so it never runs. */
    static class BridgedHandler {

        @DelayedHandler(queue = BRIDGED)
        void handle(Item item) {
            throw new IllegalStateException("the bridged queue was paused: " + item);
        }
    }

    /** Holds the first job of {@code held} until the fixture is written: the consumer that dies holding it. */
    static class StuckHandler {

        final CountDownLatch release = new CountDownLatch(1);

        @DelayedHandler(queue = HELD, concurrency = "1")
        void hold(Item item) throws InterruptedException {
            release.await(5, TimeUnit.MINUTES);
        }

        @DelayedHandler(queue = GROUPED, concurrency = "1")
        void holdGrouped(Item item) throws InterruptedException {
            release.await(5, TimeUnit.MINUTES);
        }
    }

    @Test
    void write() throws IOException {
        try (RedisServerProcess server = RedisServerProcess.start()) {
            RedissonClient redisson = client(server);
            try (ConfigurableApplicationContext publisherApp = run(server, PublisherOnly.class,
                    "delay.instance-id=fixture-publisher")) {
                DelayPublisher publisher = publisherApp.getBean(DelayPublisher.class);
                DelayQueueControl control = publisherApp.getBean(DelayQueueControl.class);
                publishWaiting(publisher, control);
                failAndRetry(server, publisher);
                bridge(server, redisson, control);
                crashHolding(server, redisson, publisher);
            }
            finally {
                redisson.shutdown();
            }
        }
    }

    private static void publishWaiting(DelayPublisher publisher, DelayQueueControl control) {
        publisher.publishAt(WAITING, new Item("delayed-1"), FUTURE, "delayed-1");
        publisher.publishAt(WAITING, new Item("delayed-2"), FUTURE.plusSeconds(60), "delayed-2");
        publisher.publishAt(WAITING, new Item("keyed-delayed"), FUTURE.plusSeconds(120), "keyed-delayed");
        for (int i = 1; i <= 3; i++) {
            publisher.publishAt(WAITING, new Item("ready-" + i), PAST.plusSeconds(i), "ready-" + i);
        }
        for (int i = 1; i <= 6; i++) {
            publisher.publishAt(PARTS, new Item("part-" + i), PAST.plusSeconds(i), "part-" + i);
        }
        publisher.publishAt(PARTS, new Item("part-delayed"), FUTURE, "part-delayed");
        publisher.publishAt(PAUSED, new Item("paused-1"), PAST, "paused-1");
        control.pause(PAUSED);
        publisher.publishAt(LIMITED, new Item("limited-1"), PAST, "limited-1");
        control.setRateLimit(LIMITED, RateLimit.parse(FixtureQueues.RATE_LIMIT));
    }

    /** DEAD jobs with their errors, and a job waiting for its retry, by a consumer that runs their handlers. */
    private static void failAndRetry(RedisServerProcess server, DelayPublisher publisher) {
        publisher.publishAt(FAILING, new Item("dead-retryable"), PAST, "dead-retryable");
        publisher.publishAt(FAILING, new Item("dead-non-retryable"), PAST.plusSeconds(1), "dead-non-retryable");
        publisher.publishAt(RETRYING, new Item("retried"), PAST, "retried");
        try (ConfigurableApplicationContext consumer = run(server, FailingHandlers.class,
                "delay.instance-id=fixture-failing")) {
            awaitState(publisher, FAILING, "dead-retryable", JobState.DEAD);
            awaitState(publisher, FAILING, "dead-non-retryable", JobState.DEAD);
            await().atMost(Duration.ofSeconds(30)).until(() -> publisher.find(RETRYING, "retried")
                    .filter(job -> job.state() == JobState.DELAYED && job.attempts() == 1).isPresent());
        }
        // its retry is due in an hour: move it past any test run, keeping its attempt and error
        publisher.reschedule(RETRYING, "retried", FUTURE);
    }

    /**
     * The bridged queue: one element adopted into the native queue (while the queue was paused, so
     * that it stays there), one in Redisson's target list, not adopted yet, and one in Redisson's
     * timeout set, due in 2100.
     */
    private static void bridge(RedisServerProcess server, RedissonClient redisson, DelayQueueControl control) {
        RDelayedQueue<String> legacy = redisson.getDelayedQueue(redisson.getBlockingQueue(LEGACY_LIST, StringCodec.INSTANCE));
        try {
            try (ConfigurableApplicationContext bridging = run(server, BridgedHandler.class,
                    "delay.instance-id=fixture-bridging", "delay.queues." + BRIDGED + ".paused-on-startup=true")) {
                legacy.offer("{\"name\":\"legacy-adopted\"}", 0, TimeUnit.MILLISECONDS);
                await().atMost(Duration.ofSeconds(30)).until(() -> redisson.getMap(PREFIX + ":{" + BRIDGED + "}:jobs")
                        .size() == 1 && redisson.getList(LEGACY_LIST).isEmpty());
            }
            control.resume(BRIDGED);
            legacy.offer("{\"name\":\"legacy-waiting\"}", 0, TimeUnit.MILLISECONDS);
            long untilFuture = FUTURE.toEpochMilli() - System.currentTimeMillis();
            legacy.offer("{\"name\":\"legacy-later\"}", untilFuture, TimeUnit.MILLISECONDS);
            await().atMost(Duration.ofSeconds(30)).until(() -> redisson.getList(LEGACY_LIST).size() == 1);
        }
        finally {
            legacy.destroy();
        }
    }

    /**
     * A consumer that dies holding a RUNNING job (with a keyed successor published while it ran) and a
     * PREFETCHED one: its heartbeats stop, its lease runs out, and nothing recovers its jobs (no
     * other consumer of the queue runs). The fixture is written then, before it is closed.
     */
    private static void crashHolding(RedisServerProcess server, RedissonClient redisson, DelayPublisher publisher)
            throws IOException {
        publisher.publishAt(HELD, new Item("held-running"), PAST, "held-running");
        publisher.publishAt(HELD, new Item("held-prefetched"), PAST.plusSeconds(1), "held-prefetched");
        publishGrouped(publisher, "grouped-a-1", GROUP_A, PAST);
        ConfigurableApplicationContext crashed = run(server, StuckHandler.class, "delay.instance-id=" + GONE_INSTANCE,
                "delay.queues." + HELD + ".prefetch=1", "delay.queues." + GROUPED + ".prefetch=0",
                "delay.heartbeat-interval=200ms", "delay.heartbeat-lease=1s", "delay.shutdown-timeout=0s");
        try {
            awaitState(publisher, HELD, "held-running", JobState.RUNNING);
            awaitState(publisher, HELD, "held-prefetched", JobState.PREFETCHED);
            // its group held by the running job: the group's next job waits READY behind it (the
            // consumer's one worker is busy and it keeps no buffer, so it takes nothing else)
            awaitState(publisher, GROUPED, "grouped-a-1", JobState.RUNNING);
            publishGrouped(publisher, "grouped-a-2", GROUP_A, PAST.plusSeconds(1));
            publishGrouped(publisher, "grouped-b-1", GROUP_B, PAST.plusSeconds(2));
            publishGrouped(publisher, "grouped-none", null, PAST.plusSeconds(3));
            publishGrouped(publisher, "grouped-delayed", GROUP_A, FUTURE);
            publisher.publishAt(HELD, new Item("held-successor"), PAST.plusSeconds(2), "held-running");
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> publisher.find(HELD, "held-running").orElseThrow().successor() != null);

            crashed.getBean(QueueWatchdog.class).stop();
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                Double lease = redisson.getScoredSortedSet(PREFIX + ":{" + HELD + "}:instances", StringCodec.INSTANCE)
                        .getScore(GONE_INSTANCE);
                return lease != null && lease < System.currentTimeMillis() - 100;
            });
            writeFixture(redisson);
        }
        finally {
            crashed.getBean(StuckHandler.class).release.countDown();
            crashed.close();
        }
    }

    private static void writeFixture(RedissonClient redisson) throws IOException {
        List<String> keys = new ArrayList<>(redisson.getKeys()
                .getKeysStream(KeysScanOptions.defaults().pattern(PREFIX + ":*")).toList());
        keys.addAll(FixtureQueues.LEGACY_KEYS);
        Map<String, Object> dump = RedisDump.read(redisson, keys);
        Map<String, Object> fixture = new LinkedHashMap<>();
        fixture.put("format", DataFormat.CURRENT);
        fixture.put("prefix", PREFIX);
        fixture.put("about", "Raw Redis contents left by delay-jobs applications of data format " + DataFormat.CURRENT
                + ", written by dev.delayjobs.format.DataFormatFixtures and read by DataFormatFixturesTest "
                + "(docs/versioning.md). Regenerate only when this format is still unreleased.");
        fixture.put("keys", dump);
        if (!Files.isDirectory(DIRECTORY.getParent())) {
            throw new IllegalStateException("no " + DIRECTORY.getParent().toAbsolutePath()
                    + ": run the writer in the delay-starter module (the command in this class's comment)");
        }
        Files.createDirectories(DIRECTORY);
        JsonMapper json = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();
        Files.writeString(DIRECTORY.resolve("format-" + DataFormat.CURRENT + ".json"),
                json.writeValueAsString(fixture) + "\n");
    }

    private static void publishGrouped(DelayPublisher publisher, String name, String group, java.time.Instant dueAt) {
        publisher.publish(GROUPED, PublishRequest.of(new Item(name)).at(dueAt).key(name).group(group));
    }

    private static void awaitState(DelayPublisher publisher, String queue, String id, JobState state) {
        await().atMost(Duration.ofSeconds(30)).until(() -> publisher.find(queue, id).map(j -> j.state() == state)
                .orElse(false));
    }

    private static ConfigurableApplicationContext run(RedisServerProcess server, Class<?> handlers, String... extra) {
        return TestApps.run(server.host(), server.port(), PREFIX, List.of(handlers), FixtureQueues.properties(extra));
    }

    private static RedissonClient client(RedisServerProcess server) {
        Config config = new Config();
        config.useSingleServer().setAddress("redis://" + server.address());
        return Redisson.create(config);
    }

}
