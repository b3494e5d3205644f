package dev.delayjobs.redis;

import static dev.delayjobs.test.ClaimRequests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static dev.delayjobs.test.TestPartitions.whole;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import dev.delayjobs.store.StoredJob;
import dev.delayjobs.JobInfo;
import dev.delayjobs.store.ClaimRequest;
import dev.delayjobs.JobState;
import dev.delayjobs.test.TestRedis;
import dev.delayjobs.queue.QueueName;

/**
 * A keyed publish that meets its job held by a consumer (RUNNING or PREFETCHED) is kept as the
 * key's successor, and the held job's outcome decides what becomes of it (guarantees.md, duplicate
 * keys): the new intent is never dropped.
 */
class KeyedSuccessorTest {

    static final RedissonClient redisson = TestRedis.sharedClient();
    RedisJobStore store;

    @BeforeEach
    void newPrefix() {
        store = new RedisJobStore(redisson, TestRedis.uniquePrefix());
    }

    @Test
    void aKeyedPublishThatMeetsARunningJobBecomesTheJobWhenTheRunIsAcked() {
        StoredJob held = publishAndClaim("\"first\"");

        store.publish(whole("q"), List.of(new NewJob("k", true, 0, false, "\"second\"")));
        assertThat(store.find(whole("q"), "k").orElseThrow().payloadJson()).as("the held job is untouched").isEqualTo("\"first\"");
        assertThat(store.partition(whole("q")).ack("i1", List.of(held))).isEqualTo(1);

        JobInfo next = store.find(whole("q"), "k").orElseThrow();
        assertThat(next.state()).isEqualTo(JobState.READY);
        assertThat(next.payloadJson()).isEqualTo("\"second\"");
        assertThat(next.attempts()).isZero();
        assertThat(claim("i2")).extracting(StoredJob::payload).containsExactly("\"second\"");
    }

    @Test
    void aKeyedPublishThatMeetsAPrefetchedJobBecomesTheJobWhenItsRunIsAcked() {
        store.publish(whole("q"), List.of(new NewJob("k", true, 0, false, "\"first\"")));
        // start 0: taken into the consumer's buffer, PREFETCHED; its ack overtakes the start mark
        StoredJob held = store.partition(whole("q")).claim(new ClaimRequest("i1", 1, 0, Duration.ofSeconds(30), 1, null, 0, 1)).jobs().get(0);
        assertThat(store.find(whole("q"), "k").orElseThrow().state()).isEqualTo(JobState.PREFETCHED);

        store.publish(whole("q"), List.of(new NewJob("k", true, 60_000, false, "\"second\"")));
        store.partition(whole("q")).ack("i1", List.of(held));

        JobInfo next = store.find(whole("q"), "k").orElseThrow();
        assertThat(next.state()).as("due in a minute, as published").isEqualTo(JobState.DELAYED);
        assertThat(next.payloadJson()).isEqualTo("\"second\"");
        assertThat(next.dueAt().toEpochMilli() - next.publishedAt().toEpochMilli()).isEqualTo(60_000);
    }

    @Test
    void aReplacingSuccessorReplacesTheHeldJobWhenItIsRetried() {
        StoredJob held = publishAndClaim("\"first\"");

        store.publish(whole("q"), List.of(new NewJob("k", true, 60_000, true, "\"second\"")));
        store.partition(whole("q")).retry("i1", held, "boom", Duration.ZERO);

        JobInfo next = store.find(whole("q"), "k").orElseThrow();
        assertThat(next.state()).isEqualTo(JobState.DELAYED);
        assertThat(next.payloadJson()).isEqualTo("\"second\"");
        assertThat(next.attempts()).isZero();
        assertThat(next.lastError()).isNull();
        assertThat(store.partition(whole("q")).ack("i1", List.of(held))).as("the old claim finishes nothing").isZero();
        assertThat(store.find(whole("q"), "k").orElseThrow().payloadJson()).isEqualTo("\"second\"");
    }

    @Test
    void aNonReplacingSuccessorWaitsWhileTheHeldJobIsRetriedAndBecomesTheJobAfterItsAck() {
        StoredJob held = publishAndClaim("\"first\"");

        store.publish(whole("q"), List.of(new NewJob("k", true, 0, false, "\"second\"")));
        store.partition(whole("q")).retry("i1", held, "boom", Duration.ZERO);

        JobInfo retried = store.find(whole("q"), "k").orElseThrow();
        assertThat(retried.payloadJson()).as("the held job runs again first").isEqualTo("\"first\"");
        assertThat(retried.lastError()).isEqualTo("boom");
        store.transfer(whole("q"), 10);
        StoredJob again = claim("i1").get(0);
        assertThat(again.payload()).isEqualTo("\"first\"");
        store.partition(whole("q")).ack("i1", List.of(again));

        assertThat(store.find(whole("q"), "k").orElseThrow().payloadJson()).isEqualTo("\"second\"");
    }

    @Test
    void aSuccessorTakesTheKeyWhenTheHeldJobIsBuried() {
        StoredJob held = publishAndClaim("\"first\"");

        store.publish(whole("q"), List.of(new NewJob("k", true, 0, false, "\"second\"")));
        assertThat(store.partition(whole("q")).bury("i1", held, "gave up")).isTrue();

        JobInfo next = store.find(whole("q"), "k").orElseThrow();
        assertThat(next.state()).isEqualTo(JobState.READY);
        assertThat(next.payloadJson()).isEqualTo("\"second\"");
        assertThat(next.lastError()).isNull();
        assertThat(store.stats(whole("q")).dead()).as("the dead job does not stay: one key names one job").isZero();
        assertThat(store.stats(whole("q")).totals().get("dead")).as("its death is counted").isEqualTo(1);
    }

    @Test
    void aSuccessorStaysAttachedWhenTheHeldJobIsRecoveredAndTakesTheKeyWhenRecoveryBuriesIt() {
        StoredJob held = publishAndClaim("\"first\"");
        store.publish(whole("q"), List.of(new NewJob("k", true, 0, true, "\"second\"")));

        store.partition(whole("q")).release("i1", 2);
        StoredJob again = claim("i2").get(0);
        assertThat(again.payload()).as("a recovered job runs again as it was").isEqualTo("\"first\"");
        assertThat(again.gen()).isEqualTo(held.gen());

        // i3 takes it with a lease that runs out: recovery buries it (last attempt spent)
        store.partition(whole("q")).release("i2", 2);
        store.partition(whole("q")).claim(request("i3", 1, Duration.ofMillis(100), 1));
        await().atMost(Duration.ofSeconds(5)).until(() -> store.leases().recoverExpired(QueueName.of("q").whole(), 1).instances() == 1);

        JobInfo next = store.find(whole("q"), "k").orElseThrow();
        assertThat(next.state()).isEqualTo(JobState.READY);
        assertThat(next.payloadJson()).isEqualTo("\"second\"");
    }

    @Test
    void aSecondPublishWhileASuccessorWaitsIsKeptOrReplacesItLikeAPublishOntoAWaitingJob() {
        StoredJob held = publishAndClaim("\"first\"");

        store.publish(whole("q"), List.of(new NewJob("k", true, 0, false, "\"second\"")));
        store.publish(whole("q"), List.of(new NewJob("k", true, 0, false, "\"kept out\"")));
        store.partition(whole("q")).ack("i1", List.of(held));
        StoredJob second = claim("i1").get(0);
        assertThat(second.payload()).isEqualTo("\"second\"");

        store.publish(whole("q"), List.of(new NewJob("k", true, 0, false, "\"third\"")));
        store.publish(whole("q"), List.of(new NewJob("k", true, 0, true, "\"fourth\"")));
        store.partition(whole("q")).ack("i1", List.of(second));
        assertThat(store.find(whole("q"), "k").orElseThrow().payloadJson()).isEqualTo("\"fourth\"");
    }

    @Test
    void cancelByKeyCancelsTheSuccessorAndLeavesTheRunningJobAlone() {
        StoredJob held = publishAndClaim("\"first\"");
        store.publish(whole("q"), List.of(new NewJob("k", true, 0, false, "\"second\"")));

        assertThat(store.cancel(whole("q"), "k")).isTrue();

        assertThat(store.find(whole("q"), "k").orElseThrow().state()).isEqualTo(JobState.RUNNING);
        assertThat(store.partition(whole("q")).ack("i1", List.of(held))).isEqualTo(1);
        assertThat(store.find(whole("q"), "k")).isEmpty();
        assertThat(store.cancel(whole("q"), "k")).isFalse();
    }

    @Test
    void thePublishSaysItWasQueuedAndFindShowsTheSuccessor() {
        publishAndClaim("\"first\"");

        List<PublishOutcome> outcomes = store.publish(whole("q"), List.of(new NewJob("k", true, 60_000, false, "\"second\""),
                new NewJob("k", true, 0, false, "\"kept out\""), new NewJob("k", true, 30_000, true, "\"third\"")));

        assertThat(outcomes).containsExactly(PublishOutcome.QUEUED_AS_SUCCESSOR, PublishOutcome.KEPT_EXISTING,
                PublishOutcome.QUEUED_AS_SUCCESSOR);
        JobInfo info = store.find(whole("q"), "k").orElseThrow();
        assertThat(info.state()).isEqualTo(JobState.RUNNING);
        assertThat(info.payloadJson()).isEqualTo("\"first\"");
        JobInfo.Successor successor = info.successor();
        assertThat(successor).isNotNull();
        assertThat(successor.payloadJson()).isEqualTo("\"third\"");
        assertThat(successor.replacesJob()).isTrue();
        assertThat(successor.dueAt().toEpochMilli() - successor.publishedAt().toEpochMilli()).isEqualTo(30_000);
        assertThat(store.stats(whole("q")).delayed()).as("nothing waits in delayed before the held job ends").isZero();
    }

    @Test
    void aGeneratedIdThatMeetsAHeldJobIsKeptOutToBeDrawnAgainNotQueued() {
        publishAndClaim("\"first\"");

        assertThat(store.publish(whole("q"), List.of(new NewJob("k", true, 0, false, "\"other\"", true))))
                .containsExactly(PublishOutcome.KEPT_EXISTING);
        assertThat(store.find(whole("q"), "k").orElseThrow().successor()).isNull();
    }

    @Test
    void aReplacingPublishOntoARetriedJobWithASuccessorReplacesTheJobAndDropsTheSuccessor() {
        StoredJob held = publishAndClaim("\"first\"");
        store.publish(whole("q"), List.of(new NewJob("k", true, 0, false, "\"second\"")));
        store.partition(whole("q")).retry("i1", held, "boom", Duration.ofMinutes(1));

        assertThat(store.publish(whole("q"), List.of(new NewJob("k", true, 0, true, "\"newest\""))))
                .containsExactly(PublishOutcome.REPLACED);

        JobInfo info = store.find(whole("q"), "k").orElseThrow();
        assertThat(info.payloadJson()).isEqualTo("\"newest\"");
        assertThat(info.successor()).isNull();
        store.partition(whole("q")).ack("i1", claim("i1"));
        assertThat(store.find(whole("q"), "k")).as("nothing follows the newest intent").isEmpty();
    }

    @Test
    void cancelOfAWaitingJobCancelsItsSuccessorToo() {
        StoredJob held = publishAndClaim("\"first\"");
        store.publish(whole("q"), List.of(new NewJob("k", true, 0, false, "\"second\"")));
        store.partition(whole("q")).retry("i1", held, "boom", Duration.ofMinutes(1));

        assertThat(store.cancel(whole("q"), "k")).isTrue();

        assertThat(store.find(whole("q"), "k")).isEmpty();
        assertThat(store.publish(whole("q"), List.of(new NewJob("k", true, 0, false, "\"fresh\""))))
                .as("no successor left over to follow a new job").containsExactly(PublishOutcome.CREATED);
        store.partition(whole("q")).ack("i1", claim("i1"));
        assertThat(store.find(whole("q"), "k")).isEmpty();
    }

    private StoredJob publishAndClaim(String payload) {
        store.publish(whole("q"), List.of(new NewJob("k", true, 0, false, payload)));
        List<StoredJob> claimed = claim("i1");
        assertThat(claimed).hasSize(1);
        return claimed.get(0);
    }

    private List<StoredJob> claim(String instance) {
        return store.partition(whole("q")).claim(request(instance, 1, Duration.ofSeconds(30), 1)).jobs();
    }
}
