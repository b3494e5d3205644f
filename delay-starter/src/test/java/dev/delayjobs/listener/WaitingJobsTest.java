package dev.delayjobs.listener;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.delayjobs.store.StoredJob;

/** The prefetch buffer's order: each group's jobs as claimed, the groups in turn. */
class WaitingJobsTest {

    @Test
    void aGroupClaimedBehindAFloodIsTakenInTurnNotAfterIt() {
        WaitingJobs waiting = new WaitingJobs();
        waiting.addAll(jobs("a", 0, 1_000));
        waiting.addAll(jobs("b", 0, 3));
        waiting.addAll(jobs("a", 1_000, 2));

        List<String> taken = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            taken.add(waiting.poll().job.id());
        }
        assertThat(taken).containsExactly("a-0", "b-0", "a-1", "b-1", "a-2", "b-2", "a-3", "a-4");
        assertThat(waiting.size()).isEqualTo(1_005 - 8);
    }

    @Test
    void withoutGroupsJobsLeaveInTheOrderClaimed() {
        WaitingJobs waiting = new WaitingJobs();
        waiting.addAll(jobs(null, 0, 3));
        waiting.addAll(jobs(null, 3, 2));
        List<String> taken = new ArrayList<>();
        while (!waiting.isEmpty()) {
            taken.add(waiting.poll().job.id());
        }
        assertThat(taken).containsExactly("none-0", "none-1", "none-2", "none-3", "none-4");
        assertThat(waiting.poll()).isNull();
    }

    @Test
    void theDefaultGroupTakesItsTurnAndADrainKeepsEachGroupsOrder() {
        WaitingJobs waiting = new WaitingJobs();
        waiting.addAll(jobs(null, 0, 2));
        waiting.addAll(jobs("a", 0, 2));
        assertThat(waiting.poll().job.id()).isEqualTo("none-0");
        assertThat(waiting.poll().job.id()).isEqualTo("a-0");
        waiting.addAll(jobs("b", 0, 2));

        assertThat(waiting.drain()).extracting(e -> e.job.id()).containsExactly("none-1", "a-1", "b-0", "b-1");
        assertThat(waiting.isEmpty()).isTrue();
        assertThat(waiting.poll()).isNull();
    }

    private static List<Execution> jobs(String group, int from, int count) {
        List<Execution> jobs = new ArrayList<>();
        for (int i = from; i < from + count; i++) {
            String id = (group == null ? "none" : group) + "-" + i;
            StoredJob job = new StoredJob(id, "1", 1, 0, 0, "\"" + id + "\"", Map.of()).inGroup(group);
            jobs.add(new Execution(null, job, 0, 0, true, false));
        }
        return jobs;
    }
}
