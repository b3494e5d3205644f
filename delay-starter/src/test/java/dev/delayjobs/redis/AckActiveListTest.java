package dev.delayjobs.redis;

import static dev.delayjobs.test.ClaimRequests.request;
import static dev.delayjobs.test.TestPartitions.whole;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RList;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import dev.delayjobs.store.ClaimRequest;
import dev.delayjobs.store.PartitionStore;
import dev.delayjobs.store.StoredJob;
import dev.delayjobs.test.TestRedis;

/**
 * ack.lua takes its jobs out of the caller's active list in one rewrite of the list's head rather
 * than an LREM per job: whatever the acked jobs' places in the list, the jobs still held stay in it
 * in the order they were claimed (the order a recovery hands them back in), and each acked job
 * leaves it once.
 */
class AckActiveListTest {

    static final RedissonClient redisson = TestRedis.sharedClient();
    static final Duration LEASE = Duration.ofSeconds(30);
    RedisJobStore store;
    QueueKeys keys;
    PartitionStore partition;

    @BeforeEach
    void newPrefix() {
        String prefix = TestRedis.uniquePrefix();
        store = new RedisJobStore(redisson, prefix);
        keys = new QueueKeys(prefix, "q");
        partition = store.partition(whole("q"));
    }

    @Test
    void jobsAckedFromAnywhereInTheActiveListLeaveTheOthersInClaimOrder() {
        List<StoredJob> claimed = publishAndClaim(300, 300);
        // the head, some out of order, one deep in the list and the last one
        List<StoredJob> acked = new ArrayList<>(List.of(claimed.get(3), claimed.get(0), claimed.get(7), claimed.get(150),
                claimed.get(8), claimed.get(299)));

        assertThat(partition.ack("i1", acked)).isEqualTo(6);

        List<String> stillHeld = ids(claimed);
        stillHeld.removeAll(ids(acked));
        assertThat(active()).containsExactlyElementsOf(stillHeld);
        assertThat(store.stats(whole("q")).running()).isEqualTo(294);
    }

    @Test
    void prefetchedJobsAckedBeforeTheirStartMarksLeaveTheListLikeRunningOnes() {
        List<StoredJob> claimed = publishAndClaim(20, 5);

        assertThat(partition.ack("i1", List.of(claimed.get(12), claimed.get(1), claimed.get(19)))).isEqualTo(3);

        List<String> stillHeld = ids(claimed);
        stillHeld.removeAll(List.of(claimed.get(12).id(), claimed.get(1).id(), claimed.get(19).id()));
        assertThat(active()).containsExactlyElementsOf(stillHeld);
    }

    @Test
    void anIdTwiceInTheActiveListLeavesItOnceAndARefusedAckTouchesNothing() {
        List<StoredJob> claimed = publishAndClaim(5, 5);
        // the same id twice (see guarantees.md, known gaps): an ack takes out the first one only
        active().add(2, claimed.get(4).id());
        StoredJob held = claimed.get(1);
        StoredJob otherGen = new StoredJob(held.id(), "zz", held.attempts(), held.dueAt(), held.publishedAt(), held.payload(),
                held.headers(), held.group());

        assertThat(partition.ack("i1", List.of(claimed.get(4), otherGen))).isEqualTo(1);

        assertThat(active()).containsExactly(claimed.get(0).id(), claimed.get(1).id(), claimed.get(2).id(),
                claimed.get(3).id(), claimed.get(4).id());
    }

    @Test
    void anAckOfMoreJobsThanOneLuaCallCanUnpackDeletesThemAll() {
        List<StoredJob> claimed = publishAndClaim(9_000, 9_000);

        assertThat(partition.ack("i1", claimed)).isEqualTo(9_000);

        assertThat(active()).isEmpty();
        assertThat(store.stats(whole("q")).running()).isZero();
        assertThat(store.find(whole("q"), claimed.get(8_999).id())).isEmpty();
    }

    @Test
    void aJobAckedAfterAFailedAttemptLeavesNoErrorBehind() {
        StoredJob failing = publishAndClaim(2, 2).get(0);
        assertThat(partition.retry("i1", failing, "first attempt failed", Duration.ZERO)).isTrue();
        store.transfer(whole("q"), 10);
        StoredJob again = partition.claim(request("i1", 1, LEASE, 1)).jobs().get(0);
        assertThat(again.id()).isEqualTo(failing.id());

        assertThat(partition.ack("i1", List.of(again))).isEqualTo(1);

        assertThat(redisson.getMap(keys.errors(), StringCodec.INSTANCE).containsKey(failing.id())).isFalse();
        assertThat(store.find(whole("q"), failing.id())).isEmpty();
    }

    private List<StoredJob> publishAndClaim(int count, int started) {
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            jobs.add(new NewJob("job-" + i, true, 0, false, "1"));
        }
        for (int from = 0; from < count; from += 500) {
            store.publish(whole("q"), jobs.subList(from, Math.min(from + 500, count)));
        }
        List<StoredJob> claimed = partition.claim(new ClaimRequest("i1", count, started, LEASE, 1, null, 0, 1)).jobs();
        assertThat(claimed).hasSize(count);
        assertThat(active()).containsExactlyElementsOf(ids(claimed));
        return claimed;
    }

    private RList<String> active() {
        return redisson.getList(keys.active("i1"), StringCodec.INSTANCE);
    }

    private static List<String> ids(List<StoredJob> jobs) {
        return new ArrayList<>(jobs.stream().map(StoredJob::id).toList());
    }
}
