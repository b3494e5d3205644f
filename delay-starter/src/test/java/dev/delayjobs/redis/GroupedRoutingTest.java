package dev.delayjobs.redis;

import static dev.delayjobs.test.TestPartitions.whole;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import dev.delayjobs.JobInfo;
import dev.delayjobs.store.ClaimRequest;
import dev.delayjobs.store.StoredJob;
import dev.delayjobs.test.TestRedis;

/**
 * Every script that makes a job ready puts a grouped job on its group's ready list and the group in
 * the rotation (docs/architecture.md#groups): requeued dead jobs, jobs rescheduled to now, the
 * tester's fast-forward and a successor taking its key. The job is then claimed in its group's turn,
 * counted against its group's limit, in the first claim after, not only after a claim moved it.
 */
class GroupedRoutingTest {

    static final RedissonClient redisson = TestRedis.sharedClient();
    String prefix;
    RedisJobStore store;
    QueueKeys k;

    @BeforeEach
    void newPrefix() {
        prefix = TestRedis.uniquePrefix();
        store = new RedisJobStore(redisson, prefix);
        k = new QueueKeys(prefix, "q");
    }

    @Test
    void aRequeuedDeadGroupedJobIsClaimedInItsGroupsTurnAndCounted() {
        publish("a", "a-0", 0);
        StoredJob a0 = claim("i1", 1, 1).get(0);
        assertThat(partition().bury("i1", a0, "failed")).isTrue();
        publish("a", "a-1", 0);
        publish("b", "b-0", 0);
        publish("b", "b-1", 0);

        assertThat(store.deadJobs().requeue(whole("q"), List.of("a-0"))).isEqualTo(1);
        assertThat(readyList("a")).as("a-0 behind a-1 in a's list").containsExactly("a-1", "a-0");
        assertThat(readyList(null)).as("nothing in the default group's list").isEmpty();

        assertThat(ids(claim("i1", 10, 1))).as("one of a (its limit), one of b").containsExactlyInAnyOrder("a-1", "b-0");
        StoredJob a1 = partition().claim(new ClaimRequest("i2", 10, 10, Duration.ofSeconds(30), 1, null, 0, 1, 1)).jobs()
                .stream().filter(j -> j.id().startsWith("a")).findFirst().orElse(null);
        assertThat(a1).as("a at its limit: the requeued a-0 waits").isNull();
        assertThat(held()).containsEntry("a", "1");
    }

    @Test
    void requeueingEveryDeadJobRoutesEachToItsGroup() {
        publish("a", "a-0", 0);
        publish("b", "b-0", 0);
        publish(null, "none-0", 0);
        for (StoredJob job : claim("i1", 10, 0)) {
            assertThat(partition().bury("i1", job, "failed")).isTrue();
        }
        assertThat(store.deadJobs().requeue(whole("q"), List.of())).isEqualTo(3);

        assertThat(readyList("a")).containsExactly("a-0");
        assertThat(readyList("b")).containsExactly("b-0");
        assertThat(readyList(null)).containsExactly("none-0");
        assertThat(ids(claim("i1", 3, 1))).as("every group served in the first claim").containsExactlyInAnyOrder("a-0", "b-0",
                "none-0");
    }

    @Test
    void aGroupedJobRescheduledToNowIsClaimedInItsGroupsTurn() {
        publish("a", "a-0", 60_000);
        publish("b", "b-0", 0);
        publish("b", "b-1", 0);

        assertThat(store.reschedule(whole("q"), "a-0", true, 0)).isTrue();
        assertThat(readyList("a")).containsExactly("a-0");
        assertThat(readyList(null)).isEmpty();
        assertThat(ids(claim("i1", 2, 1))).containsExactlyInAnyOrder("a-0", "b-0");
        assertThat(held()).containsEntry("a", "1").containsEntry("b", "1");
    }

    @Test
    void fastForwardRoutesGroupedJobsToTheirGroups() {
        publish("a", "a-0", 60_000);
        publish(null, "none-0", 60_000);
        publish("b", "b-0", 0);
        publish("b", "b-1", 0);

        assertThat(new QueueTestOperations(redisson, prefix).fastForward(whole("q"), Duration.ofMinutes(2))).isEqualTo(2);
        assertThat(readyList("a")).containsExactly("a-0");
        assertThat(readyList(null)).containsExactly("none-0");
        assertThat(ids(claim("i1", 3, 1))).containsExactlyInAnyOrder("a-0", "b-0", "none-0");
    }

    @Test
    void aSuccessorTakesTheKeyWithItsOwnGroup() {
        publish("a", "key", 0);
        StoredJob held = claim("i1", 1, 1).get(0);
        // published in group b while the job of group a runs: stored as its successor
        assertThat(store.publish(whole("q"), List.of(new NewJob("key", true, 0, false, "2").inGroup("b"))))
                .containsExactly(PublishOutcome.QUEUED_AS_SUCCESSOR);
        assertThat(partition().ack("i1", List.of(held))).isEqualTo(1);

        assertThat(store.find(whole("q"), "key").orElseThrow().group()).isEqualTo("b");
        assertThat(readyList("b")).containsExactly("key");
        assertThat(readyList("a")).isEmpty();
        assertThat(ids(claim("i1", 1, 1))).containsExactly("key");
        assertThat(held()).as("counted under its own group").containsExactly(Map.entry("b", "1"));
    }

    @Test
    void aSuccessorWithoutAGroupTakesTheKeyInTheDefaultGroup() {
        publish("a", "key", 0);
        StoredJob held = claim("i1", 1, 1).get(0);
        assertThat(store.publish(whole("q"), List.of(new NewJob("key", true, 0, true, "2"))))
                .containsExactly(PublishOutcome.QUEUED_AS_SUCCESSOR);
        // a replacing successor takes the key when the held job is retried
        assertThat(partition().retry("i1", held, "failed", Duration.ofMinutes(1))).isTrue();

        assertThat(store.find(whole("q"), "key").orElseThrow().group()).isNull();
        assertThat(readyList(null)).containsExactly("key");
        assertThat(store.find(whole("q"), "key").orElseThrow().successor()).isNull();
    }

    @Test
    void findReadsAGroupedSuccessorWithItsGroup() {
        publish("a", "key", 0);
        claim("i1", 1, 1);
        store.publish(whole("q"), List.of(new NewJob("key", true, 60_000, false, "\"next\"").inGroup("b")));
        JobInfo.Successor successor = store.find(whole("q"), "key").orElseThrow().successor();
        assertThat(successor.payloadJson()).isEqualTo("\"next\"");
        assertThat(successor.group()).isEqualTo("b");

        store.publish(whole("q"), List.of(new NewJob("key", true, 60_000, true, "\"plain\"")));
        assertThat(store.find(whole("q"), "key").orElseThrow().successor().group()).as("a replacing one without a group").isNull();
    }

    @Test
    void groupsThatAppearLaterAreServedInTurn() {
        // the claim skips the rotation while the queue has no grouped job (no groups hash)
        for (int i = 0; i < 6; i++) {
            publish(null, "none-" + i, 0);
        }
        assertThat(ids(claim("i1", 1, 1))).containsExactly("none-0");
        publish("a", "a-0", 0);
        List<StoredJob> both = claim("i1", 2, 1);
        assertThat(ids(both)).containsExactlyInAnyOrder("none-1", "a-0");

        // the last grouped job cancelled while its id waits in a's list: no groups hash, a stale rotation
        publish("a", "a-1", 0);
        assertThat(partition().ack("i1", both)).isEqualTo(2);
        assertThat(store.cancel(whole("q"), "a-1")).isTrue();
        assertThat(redisson.getKeys().countExists(k.groups())).isZero();
        assertThat(ids(claim("i1", 1, 1))).containsExactly("none-2");
        publish("b", "b-0", 0);
        assertThat(ids(claim("i1", 3, 1))).contains("b-0").doesNotContain("a-1");
    }

    @Test
    void aClaimGivesEachJobItsGroupAndAResentClaimTheSame() {
        publish("a", "a-0", 0);
        publish(null, "none-0", 0);
        List<StoredJob> claimed = claim("i1", 2, 0);
        assertThat(claimed).extracting(StoredJob::id, StoredJob::group)
                .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("a-0", "a"), org.assertj.core.groups.Tuple.tuple("none-0", null));

        publish("b", "b-0", 0);
        List<Object> keys = k.of(k.ready(), k.active("i1"), k.jobs(), k.delayed(), k.dead(), k.errors(), k.stats(),
                k.instances(), k.claimFences(), k.request("c-1"), k.control(), k.rateLog(), k.claims(), k.groups(), k.groupsReady(),
                k.groupHeld());
        Object[] args = { "1", "i1", "10000", "1", "100000", "0", "0", "0", "1", "1", "0", "c-1" };
        var script = redisson.getScript(StringCodec.INSTANCE);
        List<Object> first = LuaScript.load(Script.CLAIM).run(script, org.redisson.api.RScript.Mode.READ_WRITE,
                org.redisson.api.RScript.ReturnType.LIST, keys, args);
        List<Object> copy = LuaScript.load(Script.CLAIM).run(script, org.redisson.api.RScript.Mode.READ_WRITE,
                org.redisson.api.RScript.ReturnType.LIST, keys, args);
        assertThat(first.subList(3, first.size())).as("id, record, claim state, group").hasSize(4).endsWith("b");
        assertThat(copy).isEqualTo(first);
    }

    @Test
    void clearingAQueueDeletesItsGroupKeys() {
        publish("a", "a-0", 0);
        publish("b", "b-0", 0);
        claim("i1", 1, 1);
        new QueueTestOperations(redisson, prefix).clear(whole("q"));
        assertThat(redisson.getKeys().getKeysStreamByPattern(prefix + ":{q}:*").filter(key -> !key.contains(":req:")).toList())
                .as("nothing of the queue left but the memos of requests, which expire").isEmpty();
    }

    @Test
    void aKeyPublishedTwiceInOneCallKeepsTheGroupOfItsLastRequest() {
        store.publish(whole("q"), List.of(new NewJob("k1", true, 60_000, true, "1").inGroup("a"),
                new NewJob("k1", true, 60_000, true, "2"),
                new NewJob("k2", true, 60_000, true, "1"),
                new NewJob("k2", true, 60_000, true, "2").inGroup("b"),
                new NewJob("k3", true, 0, true, "1").inGroup("a"),
                new NewJob("k3", true, 0, true, "2").inGroup("c")));

        assertThat(store.find(whole("q"), "k1").orElseThrow().group()).isNull();
        assertThat(store.find(whole("q"), "k2").orElseThrow().group()).isEqualTo("b");
        assertThat(store.find(whole("q"), "k3").orElseThrow().group()).isEqualTo("c");
        assertThat(store.stats(whole("q")).delayed()).isEqualTo(2);
        assertThat(redisson.getScoredSortedSet(k.delayed() + ":b", StringCodec.INSTANCE).readAll()).containsExactly("k2");
        assertThat(redisson.getKeys().countExists(k.delayed() + ":a")).isZero();
        assertThat(readyList("c")).containsExactly("k3");
        assertThat(readyList("a")).isEmpty();
    }

    private List<StoredJob> claim(String instance, int n, int groupLimit) {
        return partition().claim(new ClaimRequest(instance, n, n, Duration.ofSeconds(30), 1, null, 0, 1, groupLimit)).jobs();
    }

    private RedisPartitionStore partition() {
        return store.partition(whole("q"));
    }

    private void publish(String group, String id, long delayMs) {
        store.publish(whole("q"), List.of(new NewJob(id, true, delayMs, false, "1").inGroup(group)));
    }

    /** The ids in a group's ready list (null: the default group's), without the wake marker (no job; see _wake_marker.lua). */
    private List<String> readyList(String group) {
        return redisson.<String>getList(group == null ? k.ready() : k.ready() + ":" + group, StringCodec.INSTANCE).readAll()
                .stream().filter(id -> !id.isEmpty()).toList();
    }

    private Map<String, String> held() {
        Map<String, String> counts = new HashMap<>(redisson.<String, String>getMap(k.groupHeld(), StringCodec.INSTANCE).readAllMap());
        counts.remove("");
        return counts;
    }

    private static List<String> ids(List<StoredJob> jobs) {
        return new ArrayList<>(jobs.stream().map(StoredJob::id).toList());
    }
}
