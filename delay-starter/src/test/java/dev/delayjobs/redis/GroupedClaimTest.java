package dev.delayjobs.redis;

import static dev.delayjobs.test.ClaimRequests.request;
import static dev.delayjobs.test.TestPartitions.whole;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import dev.delayjobs.store.StoredJob;
import dev.delayjobs.test.TestRedis;

/**
 * Claims serve the groups that have ready jobs in turn (docs/architecture.md#groups): one group's
 * flood does not hold back another group's jobs, each group keeps its own order, and a queue that
 * never sees a group is claimed as before.
 */
class GroupedClaimTest {

    static final RedissonClient redisson = TestRedis.sharedClient();
    RedisJobStore store;
    QueueKeys k;

    @BeforeEach
    void newPrefix() {
        String prefix = TestRedis.uniquePrefix();
        store = new RedisJobStore(redisson, prefix);
        k = new QueueKeys(prefix, "q");
    }

    @Test
    void aSmallGroupIsServedWithinTheFirstClaimsOfAFlood() {
        publish("a", 5_000, 0);
        publish("b", 20, 0);

        List<String> claimed = new ArrayList<>();
        int claims = 0;
        while (claimed.stream().filter(id -> id.startsWith("b-")).count() < 20 && claims < 100) {
            claimed.addAll(claim(8));
            claims++;
        }
        assertThat(claims).as("B's 20 jobs at half of each claim of 8, not after A's 5,000").isLessThanOrEqualTo(5);
        assertThat(claimed.stream().filter(id -> id.startsWith("a-")).count()).as("A got its share meanwhile").isGreaterThan(0);
    }

    @Test
    void eachGroupKeepsItsOrderAndADefaultGroupTakesItsTurn() {
        publish("a", 30, 0);
        publish("b", 30, 0);
        publish(null, 30, 0);

        List<String> claimed = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            claimed.addAll(claim(3));
        }
        assertThat(claimed).hasSize(90);
        for (String group : List.of("a-", "b-", "none-")) {
            List<String> ofGroup = claimed.stream().filter(id -> id.startsWith(group)).toList();
            List<String> inOrder = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                inOrder.add(group + i);
            }
            assertThat(ofGroup).as(group + " in publish order").isEqualTo(inOrder);
        }
        assertThat(claimed.subList(0, 9)).as("each group had a share of the first claims")
                .anyMatch(id -> id.startsWith("a-")).anyMatch(id -> id.startsWith("b-")).anyMatch(id -> id.startsWith("none-"));
    }

    @Test
    void dueGroupedJobsAreTransferredToTheirGroupsReadyLists() {
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            jobs.add(new NewJob("a-" + i, true, 60_000 + i, false, "1").inGroup("a"));
        }
        jobs.add(new NewJob("b-0", true, 70_000, false, "1").inGroup("b"));
        store.publish(whole("q"), jobs);
        // the minute passes: every job due, in the order published
        DelayedTime.pass(redisson, k, 60_000_000);
        assertThat(store.transfer(whole("q"), 1_000).moved()).isEqualTo(101);

        assertThat(redisson.<String>getList(k.ready(), StringCodec.INSTANCE).readAll())
                .as("nothing in the default group's list but the wake marker (no job)").containsOnly("");
        List<String> first = claim(2);
        assertThat(first).as("one of each group").containsExactlyInAnyOrder("a-0", "b-0");
    }

    @Test
    void aGroupedIdFoundInTheDefaultListGoesToItsGroupNotToTheClaim() {
        publish("a", 3, 0);
        // as a script that does not route by group leaves it (a hand-back, or a watchdog of an earlier release)
        redisson.getList(k.ready(), StringCodec.INSTANCE).add("a-0");
        redisson.getList(k.ready(), StringCodec.INSTANCE).add("none-x");
        store.publish(whole("q"), List.of(new NewJob("none-x", true, 0, false, "1")));

        List<String> claimed = new ArrayList<>();
        for (int i = 0; i < 5 && claimed.size() < 4; i++) {
            claimed.addAll(claim(4));
        }
        assertThat(claimed).as("each job once").containsExactlyInAnyOrder("a-0", "a-1", "a-2", "none-x");
    }

    @Test
    void findShowsTheGroup() {
        publish("merchant,7", 1, 60_000);
        publish(null, 1, 0);
        assertThat(store.find(whole("q"), "merchant,7-0").orElseThrow().group()).isEqualTo("merchant,7");
        assertThat(store.find(whole("q"), "none-0").orElseThrow().group()).as("the default group").isNull();
    }

    @Test
    void aJobsGroupIsDeletedWithTheJob() {
        publish("a", 4, 60_000);
        publish("b", 2, 0);
        assertThat(store.cancel(whole("q"), "a-0")).isTrue();
        List<StoredJob> held = claimLimited("i1", 10, 0);
        assertThat(ids(held)).containsExactly("b-0", "b-1");
        assertThat(partition().bury("i1", job(held, "b-0"), "failed")).isTrue();
        assertThat(partition().bury("i1", job(held, "b-1"), "failed")).isTrue();
        assertThat(store.deadJobs().delete(whole("q"), List.of("b-0"))).isEqualTo(1);
        assertThat(store.deadJobs().trim(whole("q"), Duration.ZERO, 10)).isEqualTo(1);

        assertThat(redisson.<String, String>getMap(k.groups(), StringCodec.INSTANCE).readAllMap().keySet())
                .as("cancelled, deleted and trimmed jobs leave no group behind").containsExactlyInAnyOrder("a-1", "a-2", "a-3");
    }

    @Test
    void aQueueWithoutGroupsHasNoGroupKeys() {
        publish(null, 10, 0);
        store.publish(whole("q"), List.of(new NewJob("later", true, 60_000, false, "1")));
        assertThat(claim(10)).hasSize(10);

        assertThat(redisson.getKeys().countExists(k.groups(), k.groupsReady(), k.groupHeld())).isZero();
    }

    @Test
    void aGroupAtItsLimitIsPassedOverUntilItsJobIsAcked() {
        publish("a", 3, 0);
        publish("b", 3, 0);

        List<StoredJob> first = claimLimited("i1", 10, 1);
        assertThat(ids(first)).as("one job of each group, the first of each").containsExactlyInAnyOrder("a-0", "b-0");
        assertThat(claimLimited("i2", 10, 1)).as("both groups at their limit, from any instance").isEmpty();

        StoredJob a0 = first.stream().filter(j -> j.id().equals("a-0")).findFirst().orElseThrow();
        assertThat(partition().ack("i1", List.of(a0))).isEqualTo(1);
        assertThat(ids(claimLimited("i2", 10, 1))).as("a's slot freed by the ack").containsExactly("a-1");
        assertThat(held()).containsEntry("a", "1").containsEntry("b", "1");
    }

    @Test
    void retriedBuriedAndReleasedJobsFreeTheirGroupsSlots() {
        publish("a", 2, 0);
        publish("b", 2, 0);
        publish("c", 2, 0);
        List<StoredJob> held = claimLimited("i1", 10, 1);
        assertThat(held).hasSize(3);
        assertThat(partition().retry("i1", job(held, "a-0"), "failed", Duration.ofMinutes(1))).isTrue();
        assertThat(partition().bury("i1", job(held, "b-0"), "failed")).isTrue();
        partition().release("i1", 5);

        assertThat(held()).as("no job held, no count left").isEmpty();
        assertThat(ids(claimLimited("i2", 10, 1))).as("c-0 handed back to the front of its group; a and b free")
                .containsExactlyInAnyOrder("a-1", "b-1", "c-0");
    }

    @Test
    void aCrashedInstancesJobsFreeTheirGroupsSlotsWhenRecovered() {
        publish("a", 2, 0);
        assertThat(ids(claimLimited("i1", 10, 1))).containsExactly("a-0");
        assertThat(claimLimited("i2", 10, 1)).as("a held by i1").isEmpty();

        redisson.getScoredSortedSet(k.instances(), StringCodec.INSTANCE).add(1_000, "i1");
        assertThat(store.leases().recoverExpired(whole("q"), 5).requeued()).isEqualTo(1);

        List<StoredJob> again = claimLimited("i2", 10, 1);
        assertThat(ids(again)).as("a-0 again, first in its group, and the slot is i2's now").containsExactly("a-0");
        assertThat(again.get(0).attempts()).isEqualTo(2);
        assertThat(held()).containsExactly(java.util.Map.entry("a", "1"));
    }

    @Test
    void aShortClaimSaysWhetherGroupsItDidNotReachHaveReadyJobs() {
        for (int g = 0; g < 40; g++) {
            publish("g" + g, 1, 0);
        }
        publish("a", 2, 0);
        dev.delayjobs.store.Claim first = partition().claim(
                new dev.delayjobs.store.ClaimRequest("i1", 100, 100, Duration.ofSeconds(30), 1, null, 0, 1, 1));
        assertThat(first.jobs()).as("one job of each of the 32 groups a claim visits").hasSize(32);
        assertThat(first.moreReady()).as("9 groups not reached").isTrue();
        dev.delayjobs.store.Claim second = partition().claim(
                new dev.delayjobs.store.ClaimRequest("i1", 100, 100, Duration.ofSeconds(30), 1, null, 0, 1, 1));
        assertThat(second.jobs()).as("the other 9, a's first").hasSize(9);
        assertThat(second.moreReady()).as("a's second job waits for a's slot: nothing to claim again for").isFalse();
    }

    @Test
    void withoutAGroupLimitNoHeldCountIsKeptAndHoldsStillEndInTheirGroup() {
        publish("a", 3, 0);
        QueueTestOperations tester = new QueueTestOperations(redisson, k.prefix());

        List<StoredJob> held = claimLimited("i1", 2, 0);
        assertThat(ids(held)).containsExactly("a-0", "a-1");
        assertThat(held).extracting(StoredJob::group).containsOnly("a");
        assertThat(held()).as("no held count without a limit").isEmpty();
        assertThat(redisson.<String, String>getMap(k.claims(), StringCodec.INSTANCE).get("a-0"))
                .as("gen,ar,due: the entry names no group").matches("[0-9a-z]+,[0-9a-z]+,-?[0-9a-z]+");
        assertThat(tester.groupPending(whole("q"), "a")).as("the held jobs are still pending for the tester, and a-2")
                .isEqualTo(3);

        partition().release("i1", 5);
        assertThat(ids(claimLimited("i2", 10, 0))).as("handed back to the front of their group's list, in order")
                .containsExactly("a-0", "a-1", "a-2");
        assertThat(held()).isEmpty();
    }

    private List<StoredJob> claimLimited(String instance, int n, int limit) {
        return partition().claim(new dev.delayjobs.store.ClaimRequest(instance, n, n, Duration.ofSeconds(30), 1, null, 0, 1, limit))
                .jobs();
    }

    private RedisPartitionStore partition() {
        return store.partition(whole("q"));
    }

    private java.util.Map<String, String> held() {
        java.util.Map<String, String> counts = new java.util.HashMap<>(redisson.<String, String>getMap(k.groupHeld(), StringCodec.INSTANCE)
                .readAllMap());
        counts.remove("");
        return counts;
    }

    private static StoredJob job(List<StoredJob> jobs, String id) {
        return jobs.stream().filter(j -> j.id().equals(id)).findFirst().orElseThrow();
    }

    private static List<String> ids(List<StoredJob> jobs) {
        return jobs.stream().map(StoredJob::id).toList();
    }

    private void publish(String group, int count, long delayMs) {
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            jobs.add(new NewJob((group == null ? "none" : group) + "-" + i, true, delayMs, false, "1").inGroup(group));
        }
        for (int i = 0; i < jobs.size(); i += 1_000) {
            store.publish(whole("q"), jobs.subList(i, Math.min(i + 1_000, jobs.size())));
        }
    }

    private List<String> claim(int n) {
        return store.partition(whole("q")).claim(request("i1", n, Duration.ofSeconds(30), 1)).jobs().stream()
                .map(StoredJob::id).toList();
    }
}
