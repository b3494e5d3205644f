package dev.delayjobs.redis;

import static dev.delayjobs.test.TestPartitions.whole;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import dev.delayjobs.store.Claim;
import dev.delayjobs.store.ClaimRequest;
import dev.delayjobs.store.StoredJob;
import dev.delayjobs.test.TestRedis;

/**
 * A grouped claim pops the groups it visits, checks what it popped in one batch and updates the
 * rotation once at its end (claim.lua): whatever mix of groups, stray ids (in a list not their
 * group's) and stale ids (cancelled jobs) the lists hold, every job is claimed once, each group in
 * its own order, no group with ready ids drops out of the rotation, held counts match the held
 * jobs, and groups are served in turn.
 */
class GroupedClaimRotationTest {

    static final RedissonClient redisson = TestRedis.sharedClient();
    RedisJobStore store;
    QueueKeys k;

    @BeforeEach
    void newPrefix() {
        String prefix = TestRedis.uniquePrefix();
        store = new RedisJobStore(redisson, prefix);
        k = new QueueKeys(prefix, "q");
    }

    @ParameterizedTest
    @ValueSource(longs = { 1, 2, 3, 4 })
    void everyJobOfAMixOfGroupsStraysAndStaleIdsIsClaimedOnceAndNoGroupLeavesTheRotationWithReadyIds(long seed) {
        Random random = new Random(seed);
        Map<String, List<String>> published = publishRandomGroups(random, 45);
        Set<String> moved = new HashSet<>();
        Set<String> cancelled = new HashSet<>();
        List<String> all = published.values().stream().flatMap(List::stream).toList();
        for (String id : all) {
            int roll = random.nextInt(10);
            if (roll == 0) {
                moveToAnotherList(id, published.keySet().stream().filter(g -> !published.get(g).isEmpty()).toList(), random);
                moved.add(id);
            }
            else if (roll == 1 && store.cancel(whole("q"), id)) {
                cancelled.add(id);
            }
        }

        List<String> claimed = new ArrayList<>();
        for (int claims = 0; claims < 1_000; claims++) {
            Claim claim = claim("i1", 1 + random.nextInt(20), 0);
            claim.jobs().forEach(j -> claimed.add(j.id()));
            assertEveryGroupWithReadyIdsIsInTheRotation(published.keySet());
            if (claim.jobs().isEmpty() && !claim.moreReady()) {
                break;
            }
        }

        assertThat(claimed).as("each job once, none cancelled").doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(all.stream().filter(id -> !cancelled.contains(id)).toList());
        published.forEach((group, ids) -> assertThat(claimed.stream().filter(ids::contains).filter(id -> !moved.contains(id)).toList())
                .as(group + " in publish order (moved ids aside)")
                .isEqualTo(ids.stream().filter(id -> !moved.contains(id) && !cancelled.contains(id)).toList()));
    }

    @Test
    void underAGroupLimitTheHeldCountsAreTheHeldJobsWhileJobsAreClaimedAndAcked() {
        Random random = new Random(7);
        Map<String, List<String>> published = publishRandomGroups(random, 40);
        int total = published.values().stream().mapToInt(List::size).sum();
        Map<String, StoredJob> holding = new LinkedHashMap<>();
        int done = 0;
        for (int claims = 0; claims < 2_000 && done < total; claims++) {
            for (StoredJob job : claim("i1", 1 + random.nextInt(20), 2).jobs()) {
                assertThat(holding.put(job.id(), job)).as(job.id() + " claimed once").isNull();
            }
            Map<String, Integer> expected = new HashMap<>();
            holding.values().stream().filter(j -> j.group() != null && !j.group().isEmpty())
                    .forEach(j -> expected.merge(j.group(), 1, Integer::sum));
            Map<String, String> held = held();
            assertThat(held.keySet()).as("a count for each group holding jobs").isEqualTo(expected.keySet());
            expected.forEach((group, n) -> {
                assertThat(Integer.parseInt(held.get(group))).as(group + "'s held count").isEqualTo(n);
                assertThat(n).as(group + " within its limit").isLessThanOrEqualTo(2);
            });
            List<StoredJob> acked = holding.values().stream().filter(j -> random.nextBoolean()).toList();
            if (!acked.isEmpty()) {
                assertThat(store.partition(whole("q")).ack("i1", acked)).isEqualTo(acked.size());
                acked.forEach(j -> holding.remove(j.id()));
                done += acked.size();
            }
        }
        assertThat(done + holding.size()).as("every job claimed").isEqualTo(total);
    }

    @Test
    void groupsAreServedInTurnAndAGroupThatJoinsLaterAfterThoseInTurn() {
        for (String group : List.of("a", "b", "c")) {
            publish(group, 3);
        }
        assertThat(ids(claim("i1", 3, 0))).as("every group visited, one each").containsExactly("a-0", "b-0", "c-0");
        publish("d", 3);

        List<String> oneByOne = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            oneByOne.addAll(ids(claim("i1", 1, 0)));
        }
        assertThat(oneByOne).as("a, b and c in their turn, then d, which joined after them")
                .containsExactly("a-1", "b-1", "c-1", "d-0", "a-2", "b-2", "c-2", "d-1");
        Claim last = claim("i1", 5, 0);
        assertThat(ids(last)).containsExactly("d-2");
        assertThat(last.moreReady()).as("every group emptied").isFalse();
        assertThat(redisson.getScoredSortedSet(k.groupsReady(), StringCodec.INSTANCE).size()).as("the rotation is empty").isZero();
    }

    @Test
    void aReadyJobRescheduledLaterIsLeftInItsGroupsDelayedSetWhileTheOthersInTheBatchAreTaken() {
        publish("a", 2);
        publish("b", 2);
        publish(null, 2);
        // the ids stay in their ready lists: the claim drops them (their jobs are delayed now)
        assertThat(store.reschedule(whole("q"), "a-0", true, 60_000)).isTrue();
        assertThat(store.reschedule(whole("q"), "none-1", true, 60_000)).isTrue();

        assertThat(ids(claim("i1", 10, 0))).as("every ready job of the three groups, none of the delayed")
                .containsExactlyInAnyOrder("a-1", "b-0", "b-1", "none-0");
        assertThat(store.reschedule(whole("q"), "a-0", true, 0)).as("due now: to a's ready list").isTrue();
        assertThat(ids(claim("i1", 10, 0))).containsExactly("a-0");
    }

    /** Groups g0..g(n-1) with 0-6 jobs each, published ready, and some ungrouped jobs; group -> ids in publish order. */
    private Map<String, List<String>> publishRandomGroups(Random random, int groups) {
        Map<String, List<String>> published = new LinkedHashMap<>();
        for (int g = 0; g < groups; g++) {
            published.put("g" + g, publish("g" + g, random.nextInt(7)));
        }
        published.put("", publish(null, 1 + random.nextInt(10)));
        return published;
    }

    private List<String> publish(String group, int count) {
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            jobs.add(new NewJob((group == null ? "none" : group) + "-" + i, true, 0, false, "1").inGroup(group));
        }
        if (!jobs.isEmpty()) {
            store.publish(whole("q"), jobs);
        }
        return jobs.stream().map(NewJob::id).toList();
    }

    /**
     * As a job re-published into another group, or a script that does not route, would leave it: the
     * id out of its group's list, into the list of another group in the rotation (or ready).
     */
    private void moveToAnotherList(String id, List<String> groups, Random random) {
        String own = id.startsWith("none-") ? "" : id.substring(0, id.indexOf('-'));
        List<String> others = groups.stream().filter(g -> !g.equals(own)).toList();
        String other = others.get(random.nextInt(others.size()));
        redisson.getList(list(own), StringCodec.INSTANCE).remove(id);
        redisson.getList(list(other), StringCodec.INSTANCE).add(id);
    }

    private void assertEveryGroupWithReadyIdsIsInTheRotation(Set<String> groups) {
        var rotation = redisson.getScoredSortedSet(k.groupsReady(), StringCodec.INSTANCE);
        for (String group : groups) {
            if (!group.isEmpty() && redisson.getList(list(group), StringCodec.INSTANCE).size() > 0) {
                assertThat(rotation.contains(group)).as(group + " has ready ids: in the rotation").isTrue();
            }
        }
    }

    private String list(String group) {
        return group.isEmpty() ? k.ready() : k.ready() + ":" + group;
    }

    private Claim claim(String instance, int n, int limit) {
        return store.partition(whole("q")).claim(new ClaimRequest(instance, n, n, Duration.ofSeconds(30), 1, null, 0, 1, limit));
    }

    private Map<String, String> held() {
        Map<String, String> counts = new HashMap<>(redisson.<String, String>getMap(k.groupHeld(), StringCodec.INSTANCE).readAllMap());
        counts.remove("");
        return counts;
    }

    private static List<String> ids(Claim claim) {
        return claim.jobs().stream().map(StoredJob::id).toList();
    }
}
