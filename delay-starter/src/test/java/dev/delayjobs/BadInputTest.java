package dev.delayjobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.delayjobs.core.JobArguments;
import dev.delayjobs.test.Recorder;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/**
 * Bad input at the publisher is refused at the call with an {@link IllegalArgumentException}
 * naming the problem, stores nothing, and leaves the queue working.
 */
class BadInputTest {

    /** The queue with a handler: after every test a good job on it must still be handled. */
    static final String QUEUE = "bad-input";
    /** A queue without a handler, where jobs wait to be looked at. */
    static final String WAITING = "bad-input-waiting";
    static final Duration LATER = Duration.ofHours(1);

    record Ping(String id, String text) {
    }

    /** Jackson calls the getter, which throws: the payload cannot be written. */
    static final class Unwritable {

        public String getValue() {
            throw new IllegalStateException("this value cannot be read");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Handlers {

        final Recorder recorder = new Recorder();

        @Bean
        Handler badInputHandler() {
            return new Handler(recorder);
        }
    }

    static class Handler {

        private final Recorder recorder;

        Handler(Recorder recorder) {
            this.recorder = recorder;
        }

        @DelayedHandler(queue = QUEUE, concurrency = "2")
        void handle(DelayedJob<Ping> job) {
            recorder.record(job.id(), job.dueAt(), job.attempt(), job.payload());
        }
    }

    static ConfigurableApplicationContext context;
    static Recorder recorder;
    static DelayPublisher publisher;
    static final Set<String> goodIds = ConcurrentHashMap.newKeySet();
    static final AtomicInteger sequence = new AtomicInteger();

    @BeforeAll
    static void start() {
        context = TestApps.run(TestRedis.uniquePrefix(), List.of(Handlers.class), "delay.max-payload-size=1KB");
        recorder = context.getBean(Handlers.class).recorder;
        publisher = context.getBean(DelayPublisher.class);
    }

    @AfterAll
    static void stop() {
        context.close();
    }

    /** Whatever a test threw at the publisher, a good job on the same queue is still handled, and only good jobs were. */
    @AfterEach
    void queueStillWorks() {
        String id = publisher.publish(QUEUE, new Ping("good-" + sequence.incrementAndGet(), "fine"), Duration.ZERO);
        goodIds.add(id);
        await().atMost(Duration.ofSeconds(10)).until(() -> recorder.count(id) == 1);
        assertThat(recorder.counts().keySet()).as("only the good jobs were handled").isSubsetOf(goodIds);
        assertThat(recorder.counts().values()).as("each once").containsOnly(1);
    }

    // --- queue names --------------------------------------------------------------------------

    @Test
    void nullQueueIsRefused() {
        assertRefused(() -> publisher.publish(null, ping(), Duration.ZERO), "queue name must not be null");
        assertRefused(() -> publisher.publishAll(null, List.of(PublishRequest.of(ping()))),
                "queue name must not be null");
    }

    @Test
    void blankQueueIsRefused() {
        assertRefused(() -> publisher.publish("", ping(), Duration.ZERO), "invalid queue name ''");
        assertRefused(() -> publisher.publish("   ", ping(), Duration.ZERO), "invalid queue name '   '");
    }

    @Test
    void queueNamesOutsideTheAllowedCharactersAreRefused() {
        assertRefused(() -> publisher.publish("a b", ping(), Duration.ZERO, "k-space"), "invalid queue name 'a b'");
        assertRefused(() -> publisher.publish("{x}", ping(), Duration.ZERO, "k-brace"), "invalid queue name '{x}'");
        assertRefused(() -> publisher.publishAt("a b", ping(), Instant.now()), "invalid queue name 'a b'");
    }

    @Test
    void queueNameLongerThan100CharactersIsRefused() {
        String name = "q".repeat(101);
        assertRefused(() -> publisher.publish(name, ping(), Duration.ZERO), "invalid queue name '" + name + "'",
                "1 to 100");
        String longest = "q".repeat(100);
        assertThat(publisher.publish(longest, ping(), LATER, "at-the-limit")).isEqualTo("at-the-limit");
        assertThat(publisher.find(longest, "at-the-limit")).isPresent();
    }

    // --- delays and due times -----------------------------------------------------------------

    @Test
    void nullDelayIsRefused() {
        assertRefused(() -> publisher.publish(QUEUE, ping(), (Duration) null), "delay must not be null");
        assertRefused(() -> publisher.publish(QUEUE, ping(), null, "k-null-delay"), "delay must not be null");
        assertThat(publisher.find(QUEUE, "k-null-delay")).isEmpty();
    }

    @Test
    void negativeDelayIsRefused() {
        assertRefused(() -> publisher.publish(QUEUE, ping(), Duration.ofSeconds(-1), "k-negative"),
                "delay must not be negative");
        assertRefused(() -> publisher.publish(QUEUE, PublishRequest.of(ping()).delay(Duration.ofMillis(-1))
                .key("k-negative")), "delay must not be negative");
        assertThat(publisher.find(QUEUE, "k-negative")).isEmpty();
    }

    @Test
    void nullDueAtIsRefused() {
        assertRefused(() -> publisher.publishAt(QUEUE, ping(), null), "dueAt must not be null");
        assertRefused(() -> publisher.publishAt(QUEUE, ping(), null, "k-null-due"), "dueAt must not be null");
        assertThat(publisher.find(QUEUE, "k-null-due")).isEmpty();
    }

    @Test
    void dueTimesAndDelaysOutsideTheRangeARecordHoldsAreRefused() {
        assertRefused(() -> publisher.publishAt(QUEUE, ping(), Instant.MAX, "k-max"), "dueAt must be between");
        assertRefused(() -> publisher.publishAt(QUEUE, ping(), Instant.ofEpochMilli(Long.MIN_VALUE), "k-min"),
                "dueAt must be between");
        assertRefused(() -> publisher.publish(QUEUE, PublishRequest.of(ping()).at(Instant.parse("+10000-01-01T00:00:00Z"))
                .key("k-far")), "dueAt must be between");
        assertRefused(() -> publisher.publish(QUEUE, ping(), Duration.ofDays(36_501), "k-long"), "delay must be at most 36500 days");
        assertRefused(() -> publisher.reschedule(QUEUE, "k-any", Instant.MAX), "dueAt must be between");
        assertRefused(() -> publisher.reschedule(QUEUE, "k-any", ChronoUnit.FOREVER.getDuration()), "delay must be at most");
        for (String key : List.of("k-max", "k-min", "k-far", "k-long")) {
            assertThat(publisher.find(QUEUE, key)).isEmpty();
        }
        String edge = publisher.publishAt(QUEUE, ping(), JobArguments.MAX_DUE, "k-edge");
        assertThat(publisher.find(QUEUE, edge).orElseThrow().dueAt()).isEqualTo(JobArguments.MAX_DUE);
        publisher.cancel(QUEUE, edge);
    }

    // --- payloads -----------------------------------------------------------------------------

    @Test
    void nullPayloadIsRefused() {
        assertRefused(() -> publisher.publish(QUEUE, null, Duration.ZERO, "k-null-payload"),
                "payload must not be null");
        assertRefused(() -> publisher.publish(QUEUE, PublishRequest.of(null)), "payload must not be null");
        assertThat(publisher.find(QUEUE, "k-null-payload")).isEmpty();
    }

    @Test
    void payloadOverTheMaximumSizeIsRefused() {
        Ping big = new Ping("big", "x".repeat(1100));
        assertRefused(() -> publisher.publish(QUEUE, big, Duration.ZERO, "k-big"), "the maximum is 1024",
                "delay.max-payload-size", Ping.class.getName());
        assertThat(publisher.find(QUEUE, "k-big")).isEmpty();

        // 4 bytes of UTF-8 per character: the limit is on bytes, not characters
        Ping wide = new Ping("wide", "\uD83D\uDE00".repeat(300));
        assertRefused(() -> publisher.publish(QUEUE, wide, Duration.ZERO, "k-wide"), "the maximum is 1024");
        assertThat(publisher.find(QUEUE, "k-wide")).isEmpty();

        Ping fits = new Ping("fits", "x".repeat(900));
        assertThat(publisher.publish(WAITING, fits, LATER, "k-fits")).isEqualTo("k-fits");
    }

    @Test
    void payloadJacksonCannotWriteIsRefused() {
        assertRefused(() -> publisher.publish(QUEUE, new Unwritable(), Duration.ZERO, "k-unwritable"),
                Unwritable.class.getName(), "cannot be written as JSON");
        assertThat(publisher.find(QUEUE, "k-unwritable")).isEmpty();
    }

    // --- keys ---------------------------------------------------------------------------------

    @Test
    void nullKeyIsRefused() {
        assertRefused(() -> publisher.publish(QUEUE, ping(), Duration.ZERO, null), "job id/key must not be null");
        assertRefused(() -> publisher.publishAt(QUEUE, ping(), Instant.now(), null), "job id/key must not be null");
    }

    @Test
    void blankKeyIsRefused() {
        assertRefused(() -> publisher.publish(QUEUE, ping(), Duration.ZERO, ""), "job id/key must not be blank");
        assertRefused(() -> publisher.publish(QUEUE, PublishRequest.of(ping()).key(" \t")),
                "job id/key must not be blank");
    }

    @Test
    void keyLongerThan256CharactersIsRefused() {
        String key = "k".repeat(257);
        assertRefused(() -> publisher.publish(QUEUE, ping(), Duration.ZERO, key), "257 characters long",
                "the maximum is 256");
        assertThat(publisher.publish(WAITING, ping(), LATER, "k".repeat(256))).hasSize(256);
    }

    @Test
    void keyWithControlCharactersIsRefused() {
        assertRefused(() -> publisher.publish(QUEUE, ping(), Duration.ZERO, "order\n42"), "control characters");
        assertRefused(() -> publisher.publish(QUEUE, ping(), Duration.ZERO, "order\u000042"), "control characters");
    }

    @Test
    void badGroupsAreRefusedAndNothingElseOfTheBatchIsStored() {
        assertRefused(() -> publisher.publish(QUEUE, PublishRequest.of(ping()).group(" ")), "job group must not be blank");
        assertRefused(() -> publisher.publish(QUEUE, PublishRequest.of(ping()).group("g".repeat(257))), "job group is 257 characters long",
                "the maximum is 256");
        assertRefused(() -> publisher.publishAll(WAITING, List.of(PublishRequest.of(ping()).key("k-before-bad-group").delay(LATER),
                PublishRequest.of(ping()).group("merchant\n7"))), "job group must not contain control characters");
        assertThat(publisher.find(WAITING, "k-before-bad-group")).isEmpty();
    }

    // --- requests -----------------------------------------------------------------------------

    @Test
    void nullRequestsAreRefused() {
        assertRefused(() -> publisher.publish(QUEUE, (PublishRequest) null), "publish request must not be null");
        assertRefused(() -> publisher.publishAll(QUEUE, null), "requests must not be null");
        List<PublishRequest> withNull = Arrays.asList(PublishRequest.of(ping()).key("k-before-null"), null);
        assertRefused(() -> publisher.publishAll(QUEUE, withNull), "request 1", "publish request must not be null");
        assertThat(publisher.find(QUEUE, "k-before-null")).isEmpty();
    }

    @Test
    void publishAllWithOneBadRequestPublishesNothing() {
        List<PublishRequest> requests = List.of(
                PublishRequest.of(ping()).key("batch-1").delay(Duration.ZERO),
                PublishRequest.of(ping()).key("batch-2").delay(LATER),
                PublishRequest.of(new Ping("big", "x".repeat(2000))).key("batch-3"),
                PublishRequest.of(ping()).key("batch-4").at(Instant.now()));
        assertRefused(() -> publisher.publishAll(QUEUE, requests), "request 2", "the maximum is 1024");

        for (String key : List.of("batch-1", "batch-2", "batch-3", "batch-4")) {
            assertThat(publisher.find(QUEUE, key)).as(key).isEmpty();
        }
        assertThat(recorder.count("batch-1")).isZero();
    }

    // --- duplicate keys -----------------------------------------------------------------------

    @Test
    void publishingTheSameKeyTwiceKeepsTheFirstJob() {
        assertThat(publisher.publish(WAITING, new Ping("first", "one"), LATER, "dup")).isEqualTo("dup");
        JobInfo first = publisher.find(WAITING, "dup").orElseThrow();

        assertThat(publisher.publish(WAITING, new Ping("second", "two"), Duration.ofHours(2), "dup"))
                .isEqualTo("dup");
        assertThat(publisher.publishAll(WAITING, List.of(PublishRequest.of(new Ping("third", "3")).key("dup"))))
                .containsExactly("dup");

        JobInfo kept = publisher.find(WAITING, "dup").orElseThrow();
        assertThat(kept.payloadJson()).contains("\"first\"").doesNotContain("second", "third");
        assertThat(kept.dueAt()).isEqualTo(first.dueAt());
        assertThat(kept.state()).isEqualTo(JobState.DELAYED);
    }

    @Test
    void replaceExistingReplacesTheWaitingJob() {
        publisher.publish(WAITING, new Ping("old", "one"), LATER, "replace-me");
        JobInfo before = publisher.find(WAITING, "replace-me").orElseThrow();

        String id = publisher.publish(WAITING,
                PublishRequest.of(new Ping("new", "two")).key("replace-me").delay(Duration.ofHours(2)).replaceExisting());

        assertThat(id).isEqualTo("replace-me");
        JobInfo after = publisher.find(WAITING, "replace-me").orElseThrow();
        assertThat(after.payloadJson()).contains("\"new\"").doesNotContain("\"old\"");
        assertThat(after.state()).isEqualTo(JobState.DELAYED);
        assertThat(after.dueAt()).isAfter(before.dueAt().plus(Duration.ofMinutes(59)));
    }

    @Test
    void replaceExistingReplacesAJobThatIsDueAndWaitingForAConsumer() {
        // WAITING has no handler: a job due now stays READY
        publisher.publish(WAITING, new Ping("old", "one"), Duration.ZERO, "replace-ready");
        assertThat(publisher.find(WAITING, "replace-ready").orElseThrow().state()).isEqualTo(JobState.READY);

        publisher.publish(WAITING, PublishRequest.of(new Ping("newer", "two")).key("replace-ready").replaceExisting());
        JobInfo replaced = publisher.find(WAITING, "replace-ready").orElseThrow();
        assertThat(replaced.payloadJson()).contains("\"newer\"").doesNotContain("\"old\"");
        assertThat(replaced.state()).isEqualTo(JobState.READY);

        publisher.publish(WAITING, PublishRequest.of(new Ping("newest", "three")).key("replace-ready").delay(LATER)
                .replaceExisting());
        JobInfo delayed = publisher.find(WAITING, "replace-ready").orElseThrow();
        assertThat(delayed.payloadJson()).contains("\"newest\"");
        assertThat(delayed.state()).isEqualTo(JobState.DELAYED);
    }

    // --- helpers ------------------------------------------------------------------------------

    private static Ping ping() {
        return new Ping("bad-" + sequence.incrementAndGet(), "should never be handled");
    }

    private static void assertRefused(ThrowingCallable call, String... fragments) {
        assertThatThrownBy(call).isInstanceOf(IllegalArgumentException.class).message().contains(fragments);
    }
}
