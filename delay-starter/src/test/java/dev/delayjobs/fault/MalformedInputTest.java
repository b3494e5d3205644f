package dev.delayjobs.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static dev.delayjobs.test.TestPartitions.whole;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.annotation.JsonValue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.JobInfo;
import dev.delayjobs.JobState;
import dev.delayjobs.listener.ListenerContainerRegistry;
import dev.delayjobs.redis.QueueStats;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.test.Recorder;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.annotation.JsonDeserialize;

/**
 * Scenario 7, the part no other test covers: malformed data written into Redis by hand (or by a
 * bug, or an old version) while a consumer runs, and a payload whose custom deserializer throws
 * something other than a Jackson exception. Each bad job goes to the dead set once, or is skipped;
 * the consumer keeps handling the good jobs around it, and never loops on a bad one.
 * The rest of the bad-input scenario is covered elsewhere; docs/reliability.md lists where.
 */
@Tag("slow")
@Tag("fault")
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class MalformedInputTest {

    private static final String QUEUE = "mixed";
    private static final String PICKY = "picky";

    record Order(long id) {
    }

    /** A payload type whose deserializer fails with an IllegalStateException, not a JacksonException. */
    @JsonDeserialize(using = Refusing.Reader.class)
    record Refusing(@JsonValue String value) {

        static final class Reader extends ValueDeserializer<Refusing> {

            @Override
            public Refusing deserialize(JsonParser parser, DeserializationContext context) {
                String text = parser.getString();
                if (text.startsWith("bad")) {
                    throw new IllegalStateException("refusing '" + text + "'");
                }
                return new Refusing(text);
            }
        }
    }

    static class Handlers {

        final Recorder mixed = new Recorder();
        final Recorder picky = new Recorder();

        @DelayedHandler(queue = QUEUE, concurrency = "2")
        void handle(DelayedJob<Order> job) {
            mixed.record(job.id(), job.dueAt(), job.attempt(), job.payload());
        }

        @DelayedHandler(queue = PICKY, maxAttempts = "3", backoffInitial = "50ms")
        void handle(Refusing payload) {
            picky.record(payload.value(), null, 0, payload);
        }
    }

    static ConfigurableApplicationContext app;
    static RedissonClient redisson;
    static String prefix;
    static DelayPublisher publisher;
    static Handlers handlers;

    @BeforeAll
    static void start() {
        prefix = TestRedis.uniquePrefix();
        app = TestApps.run(prefix, List.of(Handlers.class), "delay.sweep-interval=200ms");
        redisson = TestRedis.newClient();
        publisher = app.getBean(DelayPublisher.class);
        handlers = app.getBean(Handlers.class);
    }

    @AfterAll
    static void stop() {
        app.close();
        redisson.shutdown();
    }

    @Test
    void handWrittenGarbageGoesDeadOrIsSkippedOnceAndTheGoodJobsAroundItAreHandled() {
        long now = System.currentTimeMillis();
        // a record in the job format whose payload is not JSON
        hset(QUEUE, "garbage-json", "p1," + Long.toString(now, 36) + ",0|{\"id\": 12,,,");
        // a record that is not in the job format at all
        hset(QUEUE, "not-a-record", "{\"id\": 13}");
        // a valid record whose payload does not fit the handler's type
        hset(QUEUE, "wrong-shape", "p2," + Long.toString(now, 36) + ",0|[1,2,3]");
        // ids with no record: in ready, and in delayed
        for (String id : List.of("garbage-json", "not-a-record", "wrong-shape", "no-record")) {
            redisson.getList(key(QUEUE, "ready"), StringCodec.INSTANCE).add(id);
        }
        redisson.getScoredSortedSet(key(QUEUE, "delayed"), StringCodec.INSTANCE).add(now + 100, "no-record-delayed");
        for (int i = 0; i < 50; i++) {
            publisher.publish(QUEUE, new Order(i), Duration.ofMillis(i * 10L), "good-" + i);
        }

        await().atMost(Duration.ofSeconds(15)).until(() -> handlers.mixed.total() >= 50);
        RedisJobStore store = app.getBean(RedisJobStore.class);
        await().atMost(Duration.ofSeconds(5)).until(() -> store.stats(whole(QUEUE)).dead() == 3);

        assertThat(handlers.mixed.counts()).hasSize(50).allSatisfy((id, count) -> {
            assertThat(id).startsWith("good-");
            assertThat(count).isEqualTo(1);
        });
        JobInfo garbage = publisher.find(QUEUE, "garbage-json").orElseThrow();
        assertThat(garbage.state()).isEqualTo(JobState.DEAD);
        assertThat(garbage.attempts()).as("not retried").isEqualTo(1);
        assertThat(garbage.lastError()).startsWith("payload cannot be read as " + Order.class.getName());
        JobInfo notARecord = publisher.find(QUEUE, "not-a-record").orElseThrow();
        assertThat(notARecord.state()).isEqualTo(JobState.DEAD);
        assertThat(notARecord.lastError()).isEqualTo("record is not in the job format");
        assertThat(publisher.find(QUEUE, "wrong-shape").orElseThrow().state()).isEqualTo(JobState.DEAD);
        assertThat(publisher.find(QUEUE, "no-record")).isEmpty();
        assertThat(publisher.find(QUEUE, "no-record-delayed")).isEmpty();

        QueueStats stats = store.stats(whole(QUEUE));
        assertThat(stats.ready() + stats.delayed() + stats.running()).as("nothing left waiting or running").isZero();
        assertThat(stats.totals().get("retried")).as("no bad job was retried").isZero();
        assertThat(app.getBean(ListenerContainerRegistry.class).getContainer(QUEUE).orElseThrow().isRunning()).isTrue();

        // and the queue goes on
        publisher.publish(QUEUE, new Order(99), Duration.ZERO, "good-after");
        await().atMost(Duration.ofSeconds(5)).until(() -> handlers.mixed.count("good-after") == 1);
        FaultReport.record("malformed records written into Redis by hand between 50 good jobs",
                "good handled=" + handlers.mixed.counts().size() + " duplicated=0; garbage JSON, non-record, wrong shape -> dead "
                        + "(attempt 1, not retried); ids without record in ready and delayed -> skipped");
    }

    @Test
    void payloadWhoseDeserializerThrowsANonJacksonExceptionGoesDeadInsteadOfStayingRunning() {
        publisher.publish(PICKY, new Refusing("bad-value"), Duration.ZERO, "refused");
        publisher.publish(PICKY, new Refusing("fine"), Duration.ZERO, "accepted");

        await().atMost(Duration.ofSeconds(10))
                .until(() -> publisher.find(PICKY, "refused").map(JobInfo::state).orElse(null) == JobState.DEAD);
        JobInfo refused = publisher.find(PICKY, "refused").orElseThrow();
        assertThat(refused.attempts()).isEqualTo(1);
        assertThat(refused.lastError()).as("the kind of error, not the payload text it quotes")
                .endsWith("IllegalStateException").doesNotContain("bad-value");
        await().atMost(Duration.ofSeconds(5)).until(() -> handlers.picky.count("fine") == 1);
        assertThat(app.getBean(RedisJobStore.class).stats(whole(PICKY)).running()).isZero();
    }

    private static void hset(String queue, String id, String record) {
        redisson.getMap(key(queue, "jobs"), StringCodec.INSTANCE).fastPut(id, record);
    }

    private static String key(String queue, String name) {
        return prefix + ":{" + queue + "}:" + name;
    }
}
