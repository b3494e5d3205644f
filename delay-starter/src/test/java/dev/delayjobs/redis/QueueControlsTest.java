package dev.delayjobs.redis;

import static dev.delayjobs.test.ClaimRequests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static dev.delayjobs.test.TestPartitions.whole;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import dev.delayjobs.store.StoredJob;
import dev.delayjobs.store.Claim;
import dev.delayjobs.JobState;
import dev.delayjobs.RateLimit;
import dev.delayjobs.test.TestRedis;

/** Pause and rate limit as claim.lua applies them, one claim at a time. */
class QueueControlsTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    static final RedissonClient redisson = TestRedis.sharedClient();
    RedisJobStore store;
    QueueControls controls;

    @BeforeEach
    void newPrefix() {
        String prefix = TestRedis.uniquePrefix();
        store = new RedisJobStore(redisson, prefix);
        controls = new QueueControls(redisson, prefix);
    }

    @Test
    void pausedQueueGivesNothingAndKeepsItsJobsReadyUntilResumed() {
        publishDueNow(3);
        assertThat(controls.pause(whole("q"), false)).isTrue();
        assertThat(controls.pause(whole("q"), false)).as("already paused").isFalse();

        Claim paused = store.partition(whole("q")).claim(request("i1", 10, LEASE, 1));
        assertThat(paused.paused()).isTrue();
        assertThat(paused.jobs()).isEmpty();
        assertThat(store.find(whole("q"), "j0").orElseThrow().state()).isEqualTo(JobState.READY);
        assertThat(store.stats(whole("q")).control().paused()).isTrue();
        assertThat(controls.state(whole("q")).pausedAt()).isNotNull();

        assertThat(controls.resume(whole("q"))).isTrue();
        assertThat(controls.resume(whole("q"))).as("not paused any more").isFalse();
        Claim resumed = store.partition(whole("q")).claim(request("i1", 10, LEASE, 1));
        assertThat(resumed.paused()).isFalse();
        assertThat(resumed.jobs()).extracting(StoredJob::id).containsExactly("j0", "j1", "j2");
        assertThat(store.stats(whole("q")).control().paused()).isFalse();
    }

    @Test
    void pauseOnStartupPausesOnlyAQueueNeverPausedNorResumed() {
        assertThat(controls.pause(whole("fresh"), true)).isTrue();
        assertThat(controls.resume(whole("fresh"))).isTrue();
        assertThat(controls.pause(whole("fresh"), true)).as("resumed once: a restart with paused-on-startup leaves it running")
                .isFalse();
        assertThat(controls.state(whole("fresh")).paused()).isFalse();
        assertThat(controls.pause(whole("fresh"), false)).as("an operator's pause always pauses").isTrue();
    }

    @Test
    void configuredRateLimitLetsAtMostItsPermitsStartPerWindowAcrossInstances() {
        publishDueNow(10);
        RateLimit fivePerMinute = RateLimit.parse("5/1m");

        Claim first = store.partition(whole("q")).claim(request("i1", 3, LEASE, 1, fivePerMinute));
        Claim second = store.partition(whole("q")).claim(request("i2", 10, LEASE, 1, fivePerMinute));
        Claim third = store.partition(whole("q")).claim(request("i3", 10, LEASE, 1, fivePerMinute));

        assertThat(first.jobs()).hasSize(3);
        assertThat(first.rateLimitedForMillis()).as("two permits left").isZero();
        assertThat(second.jobs()).as("the rest of the window's permits, on another instance").hasSize(2);
        assertThat(second.rateLimitedForMillis()).as("the limit is reached").isBetween(1L, 60_000L);
        assertThat(third.jobs()).isEmpty();
        assertThat(third.rateLimitedForMillis()).isBetween(1L, 60_000L);
        assertThat(store.stats(whole("q")).ready()).as("over the limit, jobs wait in ready").isEqualTo(5);
    }

    @Test
    void runtimeRateLimitReplacesTheConfiguredOneUntilCleared() {
        publishDueNow(10);
        RateLimit twoPerMinute = RateLimit.parse("2/1m");
        assertThat(store.partition(whole("q")).claim(request("i1", 10, LEASE, 1, twoPerMinute)).jobs()).hasSize(2);

        controls.setRateLimit(whole("q"), RateLimit.parse("6/1m"));
        assertThat(controls.state(whole("q")).rateLimit()).isEqualTo(RateLimit.parse("6/1m"));
        assertThat(store.stats(whole("q")).control().rateLimit()).isEqualTo(RateLimit.parse("6/1m"));
        assertThat(store.partition(whole("q")).claim(request("i1", 10, LEASE, 1, twoPerMinute)).jobs()).as("6 in the window, 2 used").hasSize(4);

        controls.setRateLimit(whole("q"), null);
        assertThat(controls.state(whole("q")).rateLimit()).isNull();
        Claim configuredAgain = store.partition(whole("q")).claim(request("i1", 10, LEASE, 1, twoPerMinute));
        assertThat(configuredAgain.jobs()).isEmpty();
        assertThat(configuredAgain.rateLimitedForMillis()).isPositive();
    }

    @Test
    void windowSlides() {
        publishDueNow(4);
        RateLimit twoPer300ms = RateLimit.parse("2/300ms");
        assertThat(store.partition(whole("q")).claim(request("i1", 10, LEASE, 1, twoPer300ms)).jobs()).hasSize(2);
        Claim limited = store.partition(whole("q")).claim(request("i1", 10, LEASE, 1, twoPer300ms));
        assertThat(limited.jobs()).isEmpty();
        assertThat(limited.rateLimitedForMillis()).isBetween(1L, 300L);

        // once the window has passed, the next two start
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
                .until(() -> store.partition(whole("q")).claim(request("i1", 10, LEASE, 1, twoPer300ms)).jobs().size() == 2);
        assertThat(store.stats(whole("q")).ready()).isZero();
    }

    @Test
    void controlChangesReachSubscribers() throws InterruptedException {
        CountDownLatch changes = new CountDownLatch(3);
        try (ChannelSubscription subscription = controls.subscribe(whole("q"), changes::countDown)) {
            assertThat(subscription.isActive()).isTrue();
            controls.pause(whole("q"), false);
            controls.setRateLimit(whole("q"), RateLimit.parse("1/1s"));
            controls.resume(whole("q"));
            assertThat(changes.await(10, TimeUnit.SECONDS)).as("pause, rate limit and resume announced").isTrue();
        }
    }

    private void publishDueNow(int count) {
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            jobs.add(new NewJob("j" + i, true, 0, false, "{\"n\":" + i + "}"));
        }
        store.publish(whole("q"), jobs);
    }
}
