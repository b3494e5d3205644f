package dev.delayjobs.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.delayjobs.test.TestPartitions.whole;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import dev.delayjobs.JobState;
import dev.delayjobs.test.TestRedis;

/**
 * The transfer is fair between groups (docs/architecture.md#groups): a group's jobs that fall due
 * while another group's flood is still being moved to ready are moved in the next transfer step, not
 * after the flood; each group's jobs still move oldest first; and a group's delayed jobs are counted,
 * found, cancelled and rescheduled as any.
 */
class FairTransferTest {

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
    void aGroupDueAfterAFloodIsMovedInTheNextStepNotAfterTheFlood() {
        publish("a", 5_000, 60_000);
        publish("b", 10, 61_000);
        // both due now: A's 5,000 since a second before B's 10, as during the transfer of a flood
        DelayedTime.pass(redisson, k, 62_000);

        Transfer step = store.transfer(whole("q"), 1_000);

        assertThat(readyOf("b")).as("B's jobs, due after all of A's, moved in the first step of 1,000")
                .containsExactlyElementsOf(ids("b", 10));
        assertThat(readyOf("a")).as("A's share of the step, oldest first").isNotEmpty()
                .containsExactlyElementsOf(ids("a", readyOf("a").size())).hasSizeLessThanOrEqualTo(1_000);
        assertThat(step.moved()).isEqualTo(readyOf("a").size() + 10);
        assertThat(step.moreDue()).as("A's flood still due").isTrue();
    }

    @Test
    void aGroupsJobsMoveOldestFirstAcrossStepsAndLeaveNothingBehind() {
        publish("a", 2_500, 60_000);
        publish(null, 700, 60_000);
        DelayedTime.pass(redisson, k, 70_000);
        assertThat(store.stats(whole("q")).delayed()).isEqualTo(3_200);

        int steps = 0;
        Transfer step;
        do {
            step = store.transfer(whole("q"), 1_000);
            steps++;
        }
        while (step.moreDue() && steps < 100);

        assertThat(readyOf("a")).as("A in due order").containsExactlyElementsOf(ids("a", 2_500));
        assertThat(redisson.<String>getList(k.ready(), StringCodec.INSTANCE).readAll()).as("the default group in due order")
                .containsExactlyElementsOf(ids("none", 700));
        assertThat(store.stats(whole("q")).delayed()).isZero();
        assertThat(redisson.getKeys().countExists(k.delayed(), k.delayed() + ":a")).as("no mark, no group zset left").isZero();
        assertThat(redisson.<String, String>getMap(k.delayedCounts(), StringCodec.INSTANCE).readAllMap())
                .containsEntry("jobs", "0").containsEntry("marks", "0");
    }

    @Test
    void moreGroupsDueThanAStepsBudgetEachGetOneJobAStepUntilAllMoved() {
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < 3_000; i++) {
            // group g<i mod 1500>: its first job is i < 1500, its second i >= 1500
            jobs.add(new NewJob("j-" + i, true, 60_000 + i, false, "1").inGroup("g" + (i % 1_500)));
        }
        for (int i = 0; i < jobs.size(); i += 1_000) {
            store.publish(whole("q"), jobs.subList(i, i + 1_000));
        }
        DelayedTime.pass(redisson, k, 70_000);

        Transfer first = store.transfer(whole("q"), 1_000);
        assertThat(first.moved()).as("a step's budget of 1,000 marks, one job each").isEqualTo(1_000);
        assertThat(readyOf("g0")).containsExactly("j-0");
        int steps = 1;
        for (Transfer step = first; step.moreDue() && steps < 100; steps++) {
            step = store.transfer(whole("q"), 1_000);
        }
        for (int g = 0; g < 1_500; g += 149) {
            assertThat(readyOf("g" + g)).as("group g" + g + " in due order").containsExactly("j-" + g, "j-" + (g + 1_500));
        }
        assertThat(store.stats(whole("q")).delayed()).isZero();
        assertThat(redisson.getKeys().countExists(k.delayed())).isZero();
        assertThat(redisson.<String, String>getMap(k.delayedCounts(), StringCodec.INSTANCE).readAllMap())
                .containsEntry("jobs", "0").containsEntry("marks", "0");
    }

    @Test
    void aGroupsMarkFollowsItsEarliestJobThroughRescheduleAndCancel() {
        publish("a", 2, 60_000); // a-0 due in 60 s, a-1 in 60.001 s
        publish(null, 1, 300_000);
        long a1Due = store.find(whole("q"), "a-1").orElseThrow().dueAt().toEpochMilli();
        assertThat(store.stats(whole("q")).delayed()).isEqualTo(3);
        assertThat(store.find(whole("q"), "a-0").orElseThrow().state()).isEqualTo(JobState.DELAYED);

        assertThat(store.reschedule(whole("q"), "a-0", true, 200_000)).isTrue();
        assertThat(store.stats(whole("q")).nextDueAt()).as("a-1 is the group's earliest now").isEqualTo(a1Due);
        assertThat(store.find(whole("q"), "a-0").orElseThrow().state()).isEqualTo(JobState.DELAYED);

        assertThat(store.cancel(whole("q"), "a-1")).isTrue();
        long a0Due = store.find(whole("q"), "a-0").orElseThrow().dueAt().toEpochMilli();
        assertThat(store.stats(whole("q")).nextDueAt()).isEqualTo(a0Due);
        assertThat(store.stats(whole("q")).delayed()).isEqualTo(2);

        assertThat(store.reschedule(whole("q"), "a-0", true, 0)).as("made due: to its group's ready list").isTrue();
        assertThat(readyOf("a")).containsExactly("a-0");
        assertThat(store.stats(whole("q")).delayed()).isEqualTo(1);
        assertThat(redisson.getKeys().countExists(k.delayed() + ":a")).isZero();
        assertThat(redisson.getScoredSortedSet(k.delayed(), StringCodec.INSTANCE).readAll()).as("only the mark of the default group's page")
                .containsExactly("\u00021");
        assertThat(redisson.getScoredSortedSet(k.delayed() + ":\u00021", StringCodec.INSTANCE).readAll()).containsExactly("none-0");
    }

    private List<String> readyOf(String group) {
        return redisson.<String>getList(k.ready() + ":" + group, StringCodec.INSTANCE).readAll();
    }

    private static List<String> ids(String group, int count) {
        return IntStream.range(0, count).mapToObj(i -> group + "-" + i).toList();
    }

    /** Publishes {@code count} jobs of {@code group}, the i-th due {@code delayMs + i} ms from now. */
    private void publish(String group, int count, long delayMs) {
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            jobs.add(new NewJob((group == null ? "none" : group) + "-" + i, true, delayMs + i, false, "1").inGroup(group));
        }
        for (int i = 0; i < jobs.size(); i += 1_000) {
            store.publish(whole("q"), jobs.subList(i, Math.min(i + 1_000, jobs.size())));
        }
    }
}
