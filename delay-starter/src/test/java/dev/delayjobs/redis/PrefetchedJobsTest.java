package dev.delayjobs.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static dev.delayjobs.test.TestPartitions.whole;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import dev.delayjobs.store.Recovery;
import dev.delayjobs.store.StoredJob;
import dev.delayjobs.store.Claim;
import dev.delayjobs.JobInfo;
import dev.delayjobs.store.ClaimRequest;
import dev.delayjobs.JobState;
import dev.delayjobs.RateLimit;
import dev.delayjobs.test.TestRedis;
import dev.delayjobs.queue.QueueName;

/**
 * The PREFETCHED state at the data-model level: a job a consumer took ahead of its workers counts
 * no attempt until its start mark, is not shown as running, cannot be cancelled, goes back unspent
 * when its consumer stops, and a job that kills its consumers still ends dead after max-attempts
 * crashes when its start marks are lost.
 */
class PrefetchedJobsTest {

    static final RedissonClient redisson = TestRedis.sharedClient();
    static final Duration LONG_LEASE = Duration.ofSeconds(30);
    static final Duration SHORT_LEASE = Duration.ofMillis(100);
    RedisJobStore store;

    @BeforeEach
    void newPrefix() {
        store = new RedisJobStore(redisson, TestRedis.uniquePrefix());
    }

    @Test
    void jobsBeyondTheStartsArePrefetchedWithNoAttemptAndShownAsWaiting() {
        publishDue("a", "b", "c");

        Claim claim = claim("i1", 3, 1, LONG_LEASE);

        assertThat(claim.jobs()).extracting(StoredJob::id).containsExactly("a", "b", "c");
        assertThat(claim.jobs()).as("each job as it reads once started").extracting(StoredJob::attempts)
                .containsOnly(1);
        assertThat(claim.suspects()).isEmpty();
        assertThat(state("a")).isEqualTo(JobState.RUNNING);
        JobInfo b = store.find(whole("q"), "b").orElseThrow();
        assertThat(b.state()).isEqualTo(JobState.PREFETCHED);
        assertThat(b.attempts()).as("no attempt before the start").isZero();

        QueueStats stats = store.stats(whole("q"));
        assertThat(stats.running()).isEqualTo(1);
        assertThat(stats.ready()).as("prefetched jobs count as ready").isEqualTo(2);
        assertThat(stats.oldestWaitingDueAt()).as("a stalled buffer stays visible").isPositive()
                .isLessThanOrEqualTo(stats.serverNow());
        assertThat(stats.instances()).extracting(QueueStats.ConsumerInstance::held).containsExactly(3L);
        assertThat(stats.instances()).extracting(QueueStats.ConsumerInstance::prefetched).containsExactly(2L);
        assertThat(stats.instances()).extracting(QueueStats.ConsumerInstance::running).containsExactly(1L);

        assertThat(store.cancel(whole("q"), "b")).as("too late to cancel").isFalse();
        assertThat(store.reschedule(whole("q"), "b", true, 60_000)).isFalse();
        assertThat(state("b")).isEqualTo(JobState.PREFETCHED);
    }

    @Test
    void underARateLimitAClaimTakesOnlyTheJobsThatStartNow() {
        publishDue("a", "b", "c");

        Claim claim = store.partition(whole("q")).claim(new ClaimRequest("i1", 3, 1, LONG_LEASE, 1, RateLimit.parse("10/1s"), 0, 1));

        // the rate log counts a job when it is claimed: a prefetched one would start later than counted
        assertThat(claim.startsOnly()).isTrue();
        assertThat(claim.jobs()).extracting(StoredJob::id).containsExactly("a");
        assertThat(state("a")).isEqualTo(JobState.RUNNING);
        assertThat(state("b")).isEqualTo(JobState.READY);
        assertThat(claim("i1", 2, 0, LONG_LEASE).startsOnly()).as("no rate limit").isFalse();
    }

    @Test
    void startMarkCountsTheAttemptOnceAndOnlyForThatClaim() {
        publishDue("a");
        StoredJob a = claim("i1", 1, 0, LONG_LEASE).jobs().get(0);

        assertThat(store.partition(whole("q")).markStartedAsync(List.of(a)).join()).isEqualTo(1);
        assertThat(store.partition(whole("q")).markStartedAsync(List.of(a)).join()).as("a resent mark").isZero();

        JobInfo info = store.find(whole("q"), "a").orElseThrow();
        assertThat(info.state()).isEqualTo(JobState.RUNNING);
        assertThat(info.attempts()).isEqualTo(1);
        assertThat(store.partition(whole("q")).ack("i1", List.of(a))).isEqualTo(1);
        assertThat(store.find(whole("q"), "a")).isEmpty();
    }

    @Test
    void outcomeThatOvertakesItsStartMarkCountsTheAttempt() {
        publishDue("acked", "retried");
        List<StoredJob> jobs = claim("i1", 2, 0, LONG_LEASE).jobs();

        assertThat(store.partition(whole("q")).ack("i1", List.of(jobs.get(0)))).isEqualTo(1);
        assertThat(store.partition(whole("q")).retry("i1", jobs.get(1), "boom", Duration.ofMinutes(1))).isTrue();
        // the marks arrive late and change nothing
        assertThat(store.partition(whole("q")).markStartedAsync(jobs).join()).isZero();

        assertThat(store.find(whole("q"), "acked")).isEmpty();
        JobInfo retried = store.find(whole("q"), "retried").orElseThrow();
        assertThat(retried.state()).isEqualTo(JobState.DELAYED);
        assertThat(retried.attempts()).isEqualTo(1);
    }

    @Test
    void gracefulReleaseHandsPrefetchedJobsBackUnspentAndNotSuspect() {
        publishDue("running", "also-running", "waiting", "waiting-too", "ready-behind");
        claim("i1", 4, 2, LONG_LEASE);

        Recovery recovery = store.partition(whole("q")).releaseAllBut("i1", List.of("running", "also-running"), 2);

        assertThat(recovery.requeued()).isEqualTo(2);
        JobInfo waiting = store.find(whole("q"), "waiting").orElseThrow();
        assertThat(waiting.state()).isEqualTo(JobState.READY);
        assertThat(waiting.attempts()).isZero();
        assertThat(state("running")).isEqualTo(JobState.RUNNING);
        assertThat(store.stats(whole("q")).instances()).as("the jobs still running stay held by i1")
                .extracting(QueueStats.ConsumerInstance::held).containsExactly(2L);
        Claim next = claim("i2", 3, 0, LONG_LEASE);
        assertThat(next.jobs()).as("handed back to the front of ready, in the order they were held")
                .extracting(StoredJob::id).containsExactly("waiting", "waiting-too", "ready-behind");
        assertThat(next.suspects()).isEmpty();
    }

    @Test
    void crashHandsPrefetchedJobsBackWithNoAttemptSpentButSuspect() {
        publishDue("running", "waiting");
        claim("i1", 2, 1, SHORT_LEASE);

        await().atMost(Duration.ofSeconds(5)).until(() -> store.leases().recoverExpired(QueueName.of("q").whole(), 3).instances() == 1);

        JobInfo running = store.find(whole("q"), "running").orElseThrow();
        assertThat(running.attempts()).as("started: its attempt counts").isEqualTo(1);
        JobInfo waiting = store.find(whole("q"), "waiting").orElseThrow();
        assertThat(waiting.state()).isEqualTo(JobState.READY);
        assertThat(waiting.attempts()).as("never started as far as Redis knows").isZero();

        Claim next = claim("i2", 2, 0, LONG_LEASE);
        assertThat(next.jobs()).extracting(StoredJob::id).containsExactly("running", "waiting");
        assertThat(next.jobs()).extracting(StoredJob::attempts).containsExactly(2, 1);
        assertThat(next.suspects()).containsExactly("waiting");
        assertThat(store.partition(whole("q")).markStarted(next.jobs().get(1))).isTrue();
        assertThat(store.find(whole("q"), "waiting").orElseThrow().attempts()).isEqualTo(1);
    }

    @Test
    void poisonJobWhoseStartMarksAreLostStillEndsDeadAfterMaxAttemptsCrashes() {
        int maxAttempts = 3;
        publishDue("poison");

        // crash 1: it ran from a buffer, and its start mark died with the consumer
        claim("c1", 1, 0, SHORT_LEASE);
        awaitRecovered();
        // crashes 2 and 3: a suspect job runs only once its start is recorded, so those count
        for (int crash = 2; crash <= maxAttempts; crash++) {
            Claim claim = claim("c" + crash, 1, 0, SHORT_LEASE);
            assertThat(claim.suspects()).containsExactly("poison");
            assertThat(store.partition(whole("q")).markStarted(claim.jobs().get(0))).isTrue();
            awaitRecovered();
        }

        JobInfo dead = store.find(whole("q"), "poison").orElseThrow();
        assertThat(dead.state()).isEqualTo(JobState.DEAD);
        assertThat(dead.attempts()).isEqualTo(maxAttempts - 1);
        assertThat(dead.lastError()).isEqualTo("consumer c3 stopped during attempt 2, after an earlier consumer stopped "
                + "while holding it with no start mark recorded");
    }

    @Test
    void poisonJobStartedStraightAwayEndsDeadAfterMaxAttemptsCrashesAsBefore() {
        publishDue("poison");
        for (int crash = 1; crash <= 3; crash++) {
            claim("c" + crash, 1, 1, SHORT_LEASE);
            awaitRecovered();
        }

        JobInfo dead = store.find(whole("q"), "poison").orElseThrow();
        assertThat(dead.state()).isEqualTo(JobState.DEAD);
        assertThat(dead.attempts()).isEqualTo(3);
        assertThat(dead.lastError()).isEqualTo("consumer c3 stopped during attempt 3");
    }

    private void awaitRecovered() {
        await().atMost(Duration.ofSeconds(5)).until(() -> store.leases().recoverExpired(QueueName.of("q").whole(), 3).instances() == 1);
    }

    private Claim claim(String instance, int max, int start, Duration lease) {
        return store.partition(whole("q")).claim(new ClaimRequest(instance, max, start, lease, 1, null, 0, 1));
    }

    private void publishDue(String... ids) {
        for (String id : ids) {
            store.publish(whole("q"), List.of(new NewJob(id, true, 0, false, "{}")));
        }
    }

    private JobState state(String id) {
        return store.find(whole("q"), id).orElseThrow().state();
    }
}
