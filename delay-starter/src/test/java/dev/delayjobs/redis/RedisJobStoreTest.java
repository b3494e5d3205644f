package dev.delayjobs.redis;

import static dev.delayjobs.test.ClaimRequests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static dev.delayjobs.test.TestPartitions.whole;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RMap;
import org.redisson.api.RScoredSortedSet;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import dev.delayjobs.store.Recovery;
import dev.delayjobs.store.StoredJob;
import dev.delayjobs.store.Claim;
import dev.delayjobs.JobInfo;
import dev.delayjobs.JobState;
import dev.delayjobs.test.TestRedis;
import dev.delayjobs.queue.QueueName;

/** The data model under states no public call produces: records written by hand, stale ids, big batches. */
class RedisJobStoreTest {

    static final RedissonClient redisson = TestRedis.sharedClient();
    RedisJobStore store;
    QueueKeys keys;

    @BeforeEach
    void newPrefix() {
        String prefix = TestRedis.uniquePrefix();
        store = new RedisJobStore(redisson, prefix);
        keys = new QueueKeys(prefix, "q");
    }

    @Test
    void recordNotInTheJobFormatGoesDeadAndTheNextJobIsStillClaimed() {
        redisson.getMap(keys.jobs(), StringCodec.INSTANCE).put("garbage", "{this is not a job record");
        redisson.getList(keys.ready(), StringCodec.INSTANCE).add("garbage");
        store.publish(whole("q"), List.of(new NewJob("good", true, 0, false, "{\"n\":1}")));

        Claim claim = store.partition(whole("q")).claim(request("i1", 10, Duration.ofSeconds(10), 1));

        assertThat(claim.jobs()).extracting(StoredJob::id).containsExactly("good");
        JobInfo garbage = store.find(whole("q"), "garbage").orElseThrow();
        assertThat(garbage.state()).isEqualTo(JobState.DEAD);
        assertThat(garbage.lastError()).isEqualTo("record is not in the job format");
        assertThat(garbage.payloadJson()).isEqualTo("{this is not a job record");
    }

    @Test
    void readyIdOfADeadJobIsSkippedAndTheJobStaysDead() {
        store.publish(whole("q"), List.of(new NewJob("d", true, 0, false, "1")));
        StoredJob dying = store.partition(whole("q")).claim(request("i1", 1, Duration.ofSeconds(10), 1)).jobs().get(0);
        assertThat(store.partition(whole("q")).bury("i1", dying, "broken")).isTrue();
        // a stale id of the dead job left in ready (claim reads the dead set only while it exists)
        redisson.getList(keys.ready(), StringCodec.INSTANCE).add("d");
        store.publish(whole("q"), List.of(new NewJob("next", true, 0, false, "2")));

        Claim claim = store.partition(whole("q")).claim(request("i1", 10, Duration.ofSeconds(10), 1));

        assertThat(claim.jobs()).extracting(StoredJob::id).containsExactly("next");
        assertThat(store.find(whole("q"), "d").orElseThrow().state()).isEqualTo(JobState.DEAD);
    }

    @Test
    void aRecordBuriedByAClaimIsNotTakenWhenItsIdComesAgainInTheSameClaim() {
        // no dead set before this claim: the id it buries is met again in the same call
        redisson.getMap(keys.jobs(), StringCodec.INSTANCE).put("garbage", "{not a job record");
        redisson.getList(keys.ready(), StringCodec.INSTANCE).addAll(List.of("garbage", "garbage"));
        store.publish(whole("q"), List.of(new NewJob("good", true, 0, false, "1")));

        Claim claim = store.partition(whole("q")).claim(request("i1", 10, Duration.ofSeconds(10), 1));

        assertThat(claim.jobs()).extracting(StoredJob::id).containsExactly("good");
        assertThat(store.find(whole("q"), "garbage").orElseThrow().state()).isEqualTo(JobState.DEAD);
        assertThat(redisson.getScoredSortedSet(keys.dead(), StringCodec.INSTANCE).size()).isEqualTo(1);
    }

    @Test
    void readyIdWithoutRecordIsSkipped() {
        redisson.getList(keys.ready(), StringCodec.INSTANCE).add("vanished");
        store.publish(whole("q"), List.of(new NewJob("present", true, 0, false, "1")));

        Claim claim = store.partition(whole("q")).claim(request("i1", 10, Duration.ofSeconds(10), 1));

        assertThat(claim.jobs()).extracting(StoredJob::id).containsExactly("present");
        assertThat(redisson.getList(keys.ready(), StringCodec.INSTANCE).size()).isZero();
        assertThat(store.find(whole("q"), "vanished")).isEmpty();
    }

    @Test
    void payloadIsStoredByteForByteWhateverItContains() {
        String payload = "{\"big\":12345678901234567890,\"pipe\":\"a|b|c\",\"nl\":\"x\\ny\",\"uni\":\"日本\"}";
        store.publish(whole("q"), List.of(new NewJob("p", true, 0, false, payload)));

        StoredJob job = store.partition(whole("q")).claim(request("i1", 1, Duration.ofSeconds(10), 1)).jobs().get(0);

        assertThat(job.payload()).isEqualTo(payload);
        assertThat(job.attempts()).isEqualTo(1);
    }

    @Test
    void transferMovesDueJobsInBatchesOldestFirstAndReportsTheNextDueTime() {
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < 2500; i++) {
            jobs.add(new NewJob("j" + i, true, 50 + i / 100, false, "{}"));
        }
        jobs.add(new NewJob("far", true, 3_600_000, false, "{}"));
        store.publish(whole("q"), jobs);
        // every j due (the last 74 ms after the publish, which ended before this read of the clock)
        long published = serverNow();
        await().pollDelay(Duration.ofMillis(100)).atMost(Duration.ofSeconds(5)).until(() -> serverNow() >= published + 75);

        Transfer first = store.transfer(whole("q"), 1000);
        assertThat(first.moved()).isEqualTo(1000);
        assertThat(first.moreDue()).isTrue();
        assertThat(store.transfer(whole("q"), 1000).moved()).isEqualTo(1000);
        Transfer last = store.transfer(whole("q"), 1000);
        assertThat(last.moved()).isEqualTo(500);
        assertThat(last.moreDue()).isFalse();
        assertThat(last.nextDueAt()).isGreaterThan(last.serverNow() + 3_000_000);
        assertThat(redisson.getList(keys.ready(), StringCodec.INSTANCE).get(0)).isEqualTo("j0");
    }

    @Test
    void claimEntersAnInstanceThatWasPresumedDeadSoItsJobsStayRecoverable() {
        store.publish(whole("q"), List.of(new NewJob("a", true, 0, false, "1")));
        assertThat(redisson.getScoredSortedSet(keys.instances(), StringCodec.INSTANCE).contains("i1")).isFalse();

        store.partition(whole("q")).claim(request("i1", 1, Duration.ofMillis(200), 1));

        assertThat(redisson.getScoredSortedSet(keys.instances(), StringCodec.INSTANCE).contains("i1")).isTrue();
        await().atMost(Duration.ofSeconds(5)).until(() -> store.leases().recoverExpired(QueueName.of("q").whole(), 5).requeued() == 1);
        assertThat(store.find(whole("q"), "a").map(JobInfo::state)).isEqualTo(Optional.of(JobState.READY));
        assertThat(store.partition(whole("q")).claim(request("i2", 1, Duration.ofSeconds(10), 1)).jobs()).extracting(StoredJob::attempts).containsExactly(2);
    }

    @Test
    void recoveryBuriesAJobThatUsedItsLastAttempt() {
        store.publish(whole("q"), List.of(new NewJob("poison", true, 0, false, "1")));
        store.partition(whole("q")).claim(request("i1", 1, Duration.ofMillis(100), 1));

        await().atMost(Duration.ofSeconds(5)).until(() -> store.leases().recoverExpired(QueueName.of("q").whole(), 1).instances() == 1);

        JobInfo info = store.find(whole("q"), "poison").orElseThrow();
        assertThat(info.state()).isEqualTo(JobState.DEAD);
        assertThat(info.lastError()).isEqualTo("consumer i1 stopped during attempt 1");
    }

    @Test
    void releaseAllButHandsBackOnlyTheJobsNoWorkerHandles() {
        store.publish(whole("q"), List.of(new NewJob("handled", true, 0, false, "1"), new NewJob("lost", true, 0, false, "2")));
        store.partition(whole("q")).claim(request("i1", 2, Duration.ofSeconds(30), 1));

        Recovery recovery = store.partition(whole("q")).releaseAllBut("i1", List.of("handled"), 2);

        assertThat(recovery.requeued()).isEqualTo(1);
        assertThat(recovery.instances()).as("a live instance stays registered").isZero();
        assertThat(store.find(whole("q"), "handled").orElseThrow().state()).isEqualTo(JobState.RUNNING);
        assertThat(store.find(whole("q"), "lost").orElseThrow().state()).isEqualTo(JobState.READY);
        assertThat(redisson.getList(keys.active("i1"), StringCodec.INSTANCE).readAll()).containsExactly("handled");
    }

    @Test
    void ackOfAReplacedJobLeavesTheReplacementAlone() {
        store.publish(whole("q"), List.of(new NewJob("k", true, 0, false, "old")));
        StoredJob claimed = store.partition(whole("q")).claim(request("i1", 1, Duration.ofSeconds(30), 1)).jobs().get(0);
        // the claim is lost (instance presumed dead), the job handed back, then replaced by a new publish
        store.partition(whole("q")).release("i1", 2);
        store.publish(whole("q"), List.of(new NewJob("k", true, 3_600_000, true, "new")));

        assertThat(store.partition(whole("q")).ack("i1", List.of(claimed))).isZero();
        assertThat(store.find(whole("q"), "k").orElseThrow().payloadJson()).isEqualTo("new");
    }

    @Test
    void lateOutcomeOfAnInstancePresumedDeadLeavesTheNewHolderAlone() {
        store.publish(whole("q"), List.of(new NewJob("j", true, 0, false, "1")));
        StoredJob first = store.partition(whole("q")).claim(request("frozen", 1, Duration.ofMillis(100), 1)).jobs().get(0);
        await().atMost(Duration.ofSeconds(5)).until(() -> store.leases().recoverExpired(QueueName.of("q").whole(), 5).requeued() == 1);
        StoredJob second = store.partition(whole("q")).claim(request("alive", 1, Duration.ofSeconds(30), 1)).jobs().get(0);
        assertThat(second.gen()).isEqualTo(first.gen());

        // the frozen instance wakes up and reports: none of it may touch the job "alive" now runs
        assertThat(store.partition(whole("q")).ack("frozen", List.of(first))).isZero();
        assertThat(store.partition(whole("q")).retry("frozen", first, "late failure", Duration.ZERO)).isFalse();
        assertThat(store.partition(whole("q")).bury("frozen", first, "late failure")).isFalse();
        JobInfo info = store.find(whole("q"), "j").orElseThrow();
        assertThat(info.state()).isEqualTo(JobState.RUNNING);
        assertThat(info.lastError()).isNull();

        assertThat(store.partition(whole("q")).ack("alive", List.of(second))).isEqualTo(1);
        assertThat(store.find(whole("q"), "j")).isEmpty();
    }

    @Test
    void outcomeOfAnOldClaimNeverRemovesTheEntryOfANewerClaimBySameInstance() {
        store.publish(whole("q"), List.of(new NewJob("k", true, 0, false, "old")));
        StoredJob old = store.partition(whole("q")).claim(request("i1", 1, Duration.ofMillis(100), 1)).jobs().get(0);
        // i1 froze past its lease; its job was recovered, replaced, and claimed again by i1
        await().atMost(Duration.ofSeconds(5)).until(() -> store.leases().recoverExpired(QueueName.of("q").whole(), 5).requeued() == 1);
        store.publish(whole("q"), List.of(new NewJob("k", true, 0, true, "new")));
        StoredJob current = store.partition(whole("q")).claim(request("i1", 2, Duration.ofSeconds(30), 1)).jobs().stream()
                .filter(j -> j.payload().equals("new")).findFirst().orElseThrow();

        assertThat(store.partition(whole("q")).ack("i1", List.of(old))).isZero();
        assertThat(store.partition(whole("q")).retry("i1", old, "late", Duration.ZERO)).isFalse();
        assertThat(store.partition(whole("q")).bury("i1", old, "late")).isFalse();
        assertThat(redisson.getList(keys.active("i1"), StringCodec.INSTANCE).readAll()).containsExactly("k");

        assertThat(store.partition(whole("q")).ack("i1", List.of(current))).isEqualTo(1);
        assertThat(store.find(whole("q"), "k")).isEmpty();
    }

    @Test
    void outcomeOfAnEarlierClaimIsRefusedAfterTheSameInstanceClaimedTheJobAgain() {
        store.publish(whole("q"), List.of(new NewJob("j", true, 0, false, "1")));
        StoredJob first = store.partition(whole("q")).claim(request("i1", 1, Duration.ofMillis(100), 1)).jobs().get(0);
        // i1 froze past its lease (its own sweep may recover the job), then claimed the job again
        await().atMost(Duration.ofSeconds(5)).until(() -> store.leases().recoverExpired(QueueName.of("q").whole(), 5).requeued() == 1);
        StoredJob second = store.partition(whole("q")).claim(request("i1", 1, Duration.ofSeconds(30), 1)).jobs().get(0);
        assertThat(second.attempts()).isEqualTo(2);

        assertThat(store.partition(whole("q")).ack("i1", List.of(first))).isZero();
        assertThat(store.partition(whole("q")).retry("i1", first, "late", Duration.ZERO)).isFalse();
        assertThat(store.find(whole("q"), "j").orElseThrow().state()).isEqualTo(JobState.RUNNING);

        assertThat(store.partition(whole("q")).ack("i1", List.of(second))).isEqualTo(1);
    }

    @Test
    void aClaimThatReachesRedisAfterTheHandBackThatFollowedItsLostReplyTakesNothing() {
        store.publish(whole("q"), List.of(new NewJob("a", true, 0, false, "1"), new NewJob("b", true, 0, false, "2")));
        long epoch = store.partition(whole("q")).releaseAllBut("i1", List.of(), 1).fence(); // the container starts: epoch 1
        assertThat(epoch).isEqualTo(1);
        // the claimer gave up on a claim of that epoch and handed back what it held, fencing it off
        assertThat(store.partition(whole("q")).releaseAllBut("i1", List.of(), 2).fence()).isEqualTo(2);

        // the lost claim only reaches Redis now, on another connection: refused, and it says so
        Claim late = store.partition(whole("q")).claim(request("i1", 2, Duration.ofSeconds(30), epoch));
        assertThat(late.jobs()).isEmpty();
        assertThat(late.fenced()).isTrue();
        assertThat(late.fence()).isEqualTo(2);
        assertThat(store.find(whole("q"), "a").orElseThrow().state()).isEqualTo(JobState.READY);
        assertThat(redisson.getList(keys.active("i1"), StringCodec.INSTANCE).size()).isZero();

        // the claims the container sends from now on carry the new epoch
        assertThat(store.partition(whole("q")).claim(request("i1", 2, Duration.ofSeconds(30), 2)).jobs()).extracting(StoredJob::id)
                .containsExactly("a", "b");
        // another instance has no fence of its own
        store.publish(whole("q"), List.of(new NewJob("c", true, 0, false, "3")));
        assertThat(store.partition(whole("q")).claim(request("i2", 1, Duration.ofSeconds(30), 1)).jobs()).extracting(StoredJob::id)
                .containsExactly("c");
    }

    @Test
    void aStartingContainerTakesOverWhatItsInstanceIdHeldAndClaimsAboveItsFence() {
        store.publish(whole("q"), List.of(new NewJob("a", true, 0, false, "1"), new NewJob("b", true, 0, false, "2")));
        // the process before: claimed both, then lost claim replies and raised its fence to 5
        store.partition(whole("q")).claim(request("pod-0", 2, Duration.ofSeconds(30), 1));
        for (int epoch = 2; epoch <= 5; epoch++) {
            store.partition(whole("q")).releaseAllBut("pod-0", List.of("a", "b"), epoch);
        }
        // it died; its successor under the same id heartbeats the same id, so no lease ever expires;
        // its first hand-back names epoch 1, and learns that the fence is higher
        Recovery takeOver = store.partition(whole("q")).releaseAllBut("pod-0", List.of(), 1);
        assertThat(takeOver.requeued()).isEqualTo(2);
        assertThat(takeOver.fence()).as("a fence never falls").isEqualTo(5);
        assertThat(store.partition(whole("q")).claim(request("pod-0", 2, Duration.ofSeconds(30), 1)).fenced()).isTrue();

        // so it hands back again above it, and claims from there
        assertThat(store.partition(whole("q")).releaseAllBut("pod-0", List.of(), 6).fence()).isEqualTo(6);
        assertThat(store.partition(whole("q")).claim(request("pod-0", 2, Duration.ofSeconds(30), 6)).jobs())
                .extracting(StoredJob::id).containsExactlyInAnyOrder("a", "b");
    }

    @Test
    void aClaimThatReachesRedisAfterAGracefulShutdownTakesNothing() {
        store.publish(whole("q"), List.of(new NewJob("a", true, 0, false, "1")));
        long epoch = store.partition(whole("q")).releaseAllBut("i1", List.of(), 1).fence();
        // the container stops; its claimer outlived the join with a claim of that epoch on its way
        store.partition(whole("q")).release("i1", epoch + 1);

        Claim late = store.partition(whole("q")).claim(request("i1", 1, Duration.ofSeconds(30), epoch));
        assertThat(late.jobs()).isEmpty();
        assertThat(late.fenced()).isTrue();
        assertThat(store.find(whole("q"), "a").orElseThrow().state()).isEqualTo(JobState.READY);
        assertThat(store.stats(whole("q")).instances()).as("the stopped instance is not entered again").isEmpty();

        // a start under the same instance id learns the fence at its first hand-back, and claims above it
        assertThat(store.partition(whole("q")).releaseAllBut("i1", List.of(), 1).fence()).isEqualTo(epoch + 1);
        store.partition(whole("q")).releaseAllBut("i1", List.of(), epoch + 2);
        assertThat(store.partition(whole("q")).claim(request("i1", 1, Duration.ofSeconds(30), epoch + 2)).jobs()).extracting(StoredJob::id)
                .containsExactly("a");
    }

    @Test
    void theFenceOfAForgottenInstanceIsKeptForItsTimeThenDeleted() {
        RMap<String, String> fences = redisson.getMap(keys.claimFences(), StringCodec.INSTANCE);
        RScoredSortedSet<String> forgotten = redisson.getScoredSortedSet(keys.forgottenFences(), StringCodec.INSTANCE);
        // one instance's lease runs out, another stops: both fences stay, each for a day
        store.partition(whole("q")).releaseAllBut("crashed", List.of(), 1);
        store.partition(whole("q")).claim(request("crashed", 1, Duration.ofMillis(100), 1));
        await().atMost(Duration.ofSeconds(5)).until(() -> store.leases().recoverExpired(QueueName.of("q").whole(), 5).instances() == 1);
        store.partition(whole("q")).release("stopped", 3);
        assertThat(fences.readAllMap()).containsOnlyKeys("crashed", "stopped");
        long now = serverNow();
        assertThat(forgotten.getScore("crashed")).isGreaterThan(now + Duration.ofHours(23).toMillis());
        assertThat(forgotten.getScore("stopped")).isGreaterThan(now + Duration.ofHours(23).toMillis());

        // one that comes back (a restart under its id) keeps its fence for good again
        store.partition(whole("q")).releaseAllBut("crashed", List.of(), 2);
        assertThat(forgotten.contains("crashed")).isFalse();

        // a fence whose time ran out goes at the next release of any instance
        store.partition(whole("q")).release("gone", 4, Duration.ofMillis(1));
        await().atMost(Duration.ofSeconds(5)).until(() -> {
            store.partition(whole("q")).releaseAllBut("live", List.of(), 1);
            return !fences.containsKey("gone");
        });
        assertThat(forgotten.contains("gone")).isFalse();
        assertThat(fences.readAllMap()).containsOnlyKeys("crashed", "stopped", "live");
    }

    private long serverNow() {
        return store.transfer(whole("unused"), 1).serverNow();
    }

    // --- issue 9: defects 3, 6, 7 ------------------------------------------------------------

    @Test
    void anAckBatchHoldingAnOldAndTheCurrentClaimOfOneJobFinishesTheCurrentOne() {
        store.publish(whole("q"), List.of(new NewJob("j", true, 0, false, "1")));
        StoredJob first = store.partition(whole("q")).claim(request("i1", 1, Duration.ofSeconds(10), 1)).jobs().get(0);
        store.partition(whole("q")).releaseAllBut("i1", List.of(), 2); // its reply was "lost": handed back, claimed again
        StoredJob second = store.partition(whole("q")).claim(request("i1", 1, Duration.ofSeconds(10), 2)).jobs().get(0);
        assertThat(second.attempts()).isEqualTo(2);

        int deleted = store.partition(whole("q")).ack("i1", List.of(first, second));

        assertThat(deleted).isEqualTo(1);
        assertThat(store.find(whole("q"), "j")).as("acked, not left RUNNING").isEmpty();
        assertThat(redisson.getList(keys.active("i1"), StringCodec.INSTANCE).size()).isZero();
    }

    @Test
    void theSameKeyTwiceInOneBatchWithReplaceEndsInOneStructure() {
        List<PublishOutcome> outcomes = store.publish(whole("q"), List.of(new NewJob("k", true, 60_000, true, "\"later\""),
                new NewJob("k", true, 0, true, "\"now\"")));

        assertThat(outcomes).containsExactly(PublishOutcome.CREATED, PublishOutcome.REPLACED);
        assertThat(redisson.getScoredSortedSet(keys.delayed(), StringCodec.INSTANCE).contains("k")).isFalse();
        assertThat(redisson.getList(keys.ready(), StringCodec.INSTANCE).readAll()).containsExactly("k");
        assertThat(store.find(whole("q"), "k").orElseThrow().payloadJson()).isEqualTo("\"now\"");

        store.publish(whole("q"), List.of(new NewJob("m", true, 0, true, "\"now\""), new NewJob("m", true, 60_000, true, "\"later\"")));
        assertThat(redisson.getList(keys.ready(), StringCodec.INSTANCE).readAll()).doesNotContain("m");
        assertThat(store.find(whole("q"), "m").orElseThrow().state()).isEqualTo(JobState.DELAYED);
        assertThat(store.partition(whole("q")).claim(request("i1", 10, Duration.ofSeconds(10), 1)).jobs()).extracting(StoredJob::id).containsExactly("k");
    }

    @Test
    void aRequeuedDeadJobGetsANewGenSoItsOldClaimCannotFinishTheNewOne() {
        store.publish(whole("q"), List.of(new NewJob("d", true, 0, false, "1")));
        StoredJob dying = store.partition(whole("q")).claim(request("i1", 1, Duration.ofSeconds(10), 1)).jobs().get(0);
        assertThat(store.partition(whole("q")).bury("i1", dying, "broken")).isTrue();
        assertThat(store.deadJobs().requeue(whole("q"), List.of("d"))).isEqualTo(1);
        StoredJob again = store.partition(whole("q")).claim(request("i1", 1, Duration.ofSeconds(10), 1)).jobs().get(0);

        assertThat(again.gen()).isNotEqualTo(dying.gen());
        assertThat(again.attempts()).isEqualTo(1);
        // the claim that died is not the one running now: (gen, attempt) names one claim
        assertThat(store.partition(whole("q")).ack("i1", List.of(dying))).isZero();
        assertThat(store.find(whole("q"), "d").orElseThrow().state()).isEqualTo(JobState.RUNNING);
        assertThat(store.partition(whole("q")).ack("i1", List.of(again))).isEqualTo(1);
    }

    @Test
    void aRecordLuaAcceptsButJavaCannotReadIsBuriedAtClaimNotHandedOver() {
        // due time far beyond a long in base 36: Lua's pattern matched it, Java's parse returned null
        redisson.getMap(keys.jobs(), StringCodec.INSTANCE).put("huge", "g1,zzzzzzzzzzzzzz,0|1");
        redisson.getList(keys.ready(), StringCodec.INSTANCE).add("huge");
        store.publish(whole("q"), List.of(new NewJob("fine", true, 0, false, "2")));

        Claim claim = store.partition(whole("q")).claim(request("i1", 10, Duration.ofSeconds(10), 1));

        assertThat(claim.jobs()).doesNotContainNull().extracting(StoredJob::id).containsExactly("fine");
        JobInfo huge = store.find(whole("q"), "huge").orElseThrow();
        assertThat(huge.state()).isEqualTo(JobState.DEAD);
        assertThat(huge.lastError()).isEqualTo("record is not in the job format");
    }

    @Test
    void bigTransfersAndClaimsLoseNothing() {
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < 12_000; i++) {
            jobs.add(new NewJob("big-" + i, false, 1, false, "1")); // due at 1970-01-01T00:00:00.001Z
        }
        for (int from = 0; from < jobs.size(); from += 500) {
            store.publish(whole("q"), jobs.subList(from, from + 500));
        }
        // published due in the past: straight to ready. Put 10,000 of them back in delayed for the transfer
        redisson.getList(keys.ready(), StringCodec.INSTANCE).trim(10_000, -1);
        Map<String, Double> delayed = new java.util.HashMap<>();
        for (int i = 0; i < 10_000; i++) {
            delayed.put("big-" + i, 1.0);
        }
        redisson.<String>getScoredSortedSet(keys.delayed(), StringCodec.INSTANCE).addAll(delayed);

        assertThat(store.transfer(whole("q"), 10_000).moved()).isEqualTo(10_000);
        List<StoredJob> claimed = store.partition(whole("q")).claim(request("i1", 9_000, Duration.ofSeconds(30), 1)).jobs();
        assertThat(claimed).hasSize(9_000);
        assertThat(redisson.getList(keys.active("i1"), StringCodec.INSTANCE).size()).isEqualTo(9_000);
        assertThat(store.stats(whole("q")).ready() + store.stats(whole("q")).running()).isEqualTo(12_000);
    }

    @Test
    void aRecordLongerThanTheConsumerAcceptsGoesDeadUnread() {
        RedisJobStore small = new RedisJobStore(redisson, store.prefix(), 100);
        small.publish(whole("q"), List.of(new NewJob("big", true, 0, false, "\"" + "x".repeat(200) + "\""),
                new NewJob("fits", true, 0, false, "1")));

        List<StoredJob> claimed = small.partition(whole("q")).claim(request("i1", 10, Duration.ofSeconds(10), 1)).jobs();

        assertThat(claimed).extracting(StoredJob::id).containsExactly("fits");
        JobInfo big = small.find(whole("q"), "big").orElseThrow();
        assertThat(big.state()).isEqualTo(JobState.DEAD);
        assertThat(big.lastError()).startsWith("record is 2").contains("more than this consumer accepts (100");
    }
}
