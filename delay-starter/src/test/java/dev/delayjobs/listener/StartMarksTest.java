package dev.delayjobs.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static dev.delayjobs.test.TestPartitions.whole;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.delayjobs.JobInfo;
import dev.delayjobs.store.ClaimRequest;
import dev.delayjobs.JobState;
import dev.delayjobs.store.Claim;
import dev.delayjobs.redis.NewJob;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.store.StoredJob;
import dev.delayjobs.test.TestRedis;

/**
 * Start marks on a real Redis: a prefetched job whose worker starts it becomes RUNNING with its
 * attempt counted, and the mark of a job whose handler has already returned by the time its mark
 * would leave is dropped (its outcome counts the attempt), so it costs Redis nothing.
 */
class StartMarksTest {

    private final RedisJobStore store = new RedisJobStore(TestRedis.sharedClient(), TestRedis.uniquePrefix());
    private final StartMarks marks = new StartMarks(store.partition(whole("q")));

    @Test
    void marksAStartedJobRunningAndDropsTheMarkOfASettledOne() {
        for (String id : List.of("settled", "running")) {
            store.publish(whole("q"), List.of(new NewJob(id, true, 0, false, "{}")));
        }
        Claim claim = store.partition(whole("q")).claim(new ClaimRequest("i1", 2, 0, Duration.ofSeconds(30), 1, null, 0, 1));
        assertThat(claim.jobs()).extracting(StoredJob::id).containsExactly("settled", "running");
        Execution settled = prefetched(claim.jobs().get(0));
        Execution running = prefetched(claim.jobs().get(1));

        assertThat(settled.settle()).as("its handler returned before the mark left").isTrue();
        marks.started(settled);
        marks.started(running);

        await().atMost(Duration.ofSeconds(10)).until(() -> find("running").state() == JobState.RUNNING);
        assertThat(find("running").attempts()).isEqualTo(1);
        // marks leave in order: had the settled job's mark been sent, it would have landed first
        JobInfo unmarked = find("settled");
        assertThat(unmarked.state()).isEqualTo(JobState.PREFETCHED);
        assertThat(unmarked.attempts()).isZero();

        // its outcome is recorded all the same: an outcome reads a PREFETCHED job as started
        assertThat(store.partition(whole("q")).ack("i1", List.of(settled.job))).isEqualTo(1);
        assertThat(store.find(whole("q"), "settled")).isEmpty();
    }

    private static Execution prefetched(StoredJob job) {
        return new Execution(null, job, System.currentTimeMillis(), System.nanoTime(), true, false);
    }

    private JobInfo find(String id) {
        return store.find(whole("q"), id).orElseThrow();
    }
}
