package dev.delayjobs.listener;

import static dev.delayjobs.test.TestPartitions.whole;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.delayjobs.redis.NewJob;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.store.Claim;
import dev.delayjobs.store.ClaimRequest;
import dev.delayjobs.store.PartitionStore;
import dev.delayjobs.store.Recovery;
import dev.delayjobs.store.StoredJob;
import dev.delayjobs.test.TestRedis;

/**
 * The claimer on a real Redis, with many groups of one job each: a claim visits a bounded number of
 * groups, so it returns fewer jobs than asked for while other groups still have ready jobs. The
 * claimer must then claim again at once, not wait on the default group's ready list (up to 1 s a
 * wait, which nothing grouped ends when every job is ready already).
 */
class GroupedClaimerTest {

    static final int GROUPS = 200;

    private ConsumerRig rig;

    @AfterEach
    void stop() {
        if (rig != null) {
            rig.stop();
        }
    }

    @Test
    void manyGroupsOfOneJobDrainWithoutWaitingForReady() throws Exception {
        RedisJobStore store = new RedisJobStore(TestRedis.sharedClient(), TestRedis.uniquePrefix());
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < GROUPS; i++) {
            jobs.add(new NewJob("j-" + i, true, 0, false, "\"j-" + i + "\"").inGroup("g-" + i));
        }
        store.publish(whole("q"), jobs);
        Counting counting = new Counting(store.partition(whole("q")));
        Handlers handlers = new Handlers(GROUPS);
        // 8 workers and a buffer of 56: each claim asks for more jobs than the groups it visits hold
        rig = new ConsumerRig(counting, handlers, Handlers.class.getDeclaredMethod("handle", String.class), new QueueSettings(8, 3,
                new QueueSettings.ExponentialBackoff(Duration.ofMillis(10), 2, Duration.ofSeconds(1), 0), true, null, null,
                false, 56));
        rig.start();

        assertThat(handlers.all.await(60, TimeUnit.SECONDS)).as("all " + GROUPS + " jobs handled").isTrue();
        assertThat(counting.claimsShort.get()).as("claims that returned fewer jobs than asked for (at most 32 groups a claim)")
                .isPositive();
        assertThat(counting.waitsWhileReadyLeft.get())
                .as("waits for ready jobs while jobs were left unclaimed (each up to 1 s that no push ends)").isZero();
    }

    /** The Redis store, counting claims and the waits for ready jobs begun before every job was claimed. */
    static final class Counting implements PartitionStore {

        final PartitionStore store;
        final AtomicInteger claimed = new AtomicInteger();
        final AtomicInteger claimsShort = new AtomicInteger();
        final AtomicInteger waitsWhileReadyLeft = new AtomicInteger();

        Counting(PartitionStore store) {
            this.store = store;
        }

        @Override
        public String name() {
            return store.name();
        }

        @Override
        public Claim claim(ClaimRequest request) {
            Claim claim = store.claim(request);
            claimed.addAndGet(claim.jobs().size());
            if (claim.jobs().size() < request.max() && claimed.get() < GROUPS) {
                claimsShort.incrementAndGet();
            }
            return claim;
        }

        @Override
        public CompletableFuture<Integer> markStartedAsync(List<StoredJob> jobs) {
            return store.markStartedAsync(jobs);
        }

        @Override
        public boolean markStarted(StoredJob job) {
            return store.markStarted(job);
        }

        @Override
        public int ack(String instance, List<StoredJob> jobs) {
            return store.ack(instance, jobs);
        }

        @Override
        public boolean retry(String instance, StoredJob job, String error, Duration backoff) {
            return store.retry(instance, job, error, backoff);
        }

        @Override
        public boolean bury(String instance, StoredJob job, String error) {
            return store.bury(instance, job, error);
        }

        @Override
        public Recovery release(String instance, long fence) {
            return store.release(instance, fence);
        }

        @Override
        public Recovery releaseAllBut(String instance, Collection<String> inFlight, long fence) {
            return store.releaseAllBut(instance, inFlight, fence);
        }

        @Override
        public boolean awaitReady(Duration timeout) {
            if (claimed.get() < GROUPS) {
                waitsWhileReadyLeft.incrementAndGet();
            }
            return store.awaitReady(timeout);
        }
    }

    /** Counts the jobs handled. */
    static final class Handlers {

        final CountDownLatch all;

        Handlers(int jobs) {
            all = new CountDownLatch(jobs);
        }

        public void handle(String id) {
            all.countDown();
        }
    }
}
