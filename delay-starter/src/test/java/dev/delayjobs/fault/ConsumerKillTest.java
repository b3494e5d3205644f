package dev.delayjobs.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static dev.delayjobs.test.TestPartitions.whole;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.JobInfo;
import dev.delayjobs.PublishRequest;
import dev.delayjobs.fault.ConsumerMain.Work;
import dev.delayjobs.fault.HandledLog.Handled;
import dev.delayjobs.redis.QueueStats;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.embeddedredis.RedisServerProcess;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/**
 * Scenario 1: two consumer JVMs share a queue, and one is killed with {@code kill -9} while its
 * handlers are in the middle of jobs and its prefetch buffer is full. Every job is handled at least
 * once, only jobs the victim held at the kill are handled twice, the jobs that only waited in its
 * buffer come back with no attempt spent, and no job is handed out before its due time.
 */
@Tag("slow")
@Tag("fault")
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ConsumerKillTest {

    private static final int JOBS = 5000;
    private static final int CONCURRENCY = 8;
    private static final int PREFETCH = 8;
    private static final String QUEUE = "work";

    @Test
    void consumerKilledMidJobLosesNothingAndOnlyItsJobsInFlightRunTwice() {
        String prefix = TestRedis.uniquePrefix();
        String[] settings = { "delay.heartbeat-interval=500ms", "delay.heartbeat-lease=2s", "delay.sweep-interval=250ms",
            "delay.consumer.prefetch=" + PREFETCH };
        try (RedisServerProcess redis = RedisServerProcess.start();
                ConsumerProcess victim = ConsumerProcess.start("victim", redis, prefix, QUEUE, CONCURRENCY, settings);
                ConsumerProcess survivor = ConsumerProcess.start("survivor", redis, prefix, QUEUE, CONCURRENCY, settings);
                ConfigurableApplicationContext app = TestApps.run("127.0.0.1", redis.port(), prefix, List.of())) {
            victim.awaitReady(Duration.ofSeconds(90));
            survivor.awaitReady(Duration.ofSeconds(90));
            DelayPublisher publisher = app.getBean(DelayPublisher.class);

            // 5,000 jobs due over 2.5 s, 10 ms of work each: more than the 1,600/s both consumers'
            // workers handle, so they stay busy the whole time and their buffers stay full
            Random random = new Random(42);
            Set<String> published = new HashSet<>();
            for (int from = 0; from < JOBS; from += 500) {
                List<PublishRequest> batch = new ArrayList<>();
                for (int i = from; i < from + 500; i++) {
                    batch.add(PublishRequest.of(Work.of(i, 10)).delay(Duration.ofMillis(random.nextInt(2500))).key("job-" + i));
                }
                published.addAll(publisher.publishAll(QUEUE, batch));
            }
            assertThat(published).hasSize(JOBS);

            // kill the victim once it is well into its share, with all its workers busy
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10))
                    .until(() -> HandledLog.read(List.of(victim.log())).size() >= 800);
            victim.kill();
            long killedAt = System.currentTimeMillis(); // the victim is dead: none of its lines is later
            int handledByVictim = HandledLog.read(List.of(victim.log())).size();
            // what the victim held at the kill, read before its lease (2 s) runs out
            HeldJobs heldAtKill = HeldJobs.read(redis, prefix, QUEUE, "victim", publisher, JobInfo::id);
            Set<String> prefetchedAtKill = heldAtKill.prefetched();
            Set<String> runningAtKill = heldAtKill.running();

            List<Path> logs = List.of(victim.log(), survivor.log());
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                    .until(() -> HandledLog.counts(HandledLog.read(logs)).size() == JOBS);
            long allHandledAt = System.currentTimeMillis();
            List<Handled> handled = HandledLog.read(logs);
            Map<String, Integer> counts = HandledLog.counts(handled);
            Set<String> duplicated = HandledLog.duplicated(handled);

            assertThat(counts.keySet()).as("every published job handled").isEqualTo(published);
            assertThat(HandledLog.early(handled)).as("handed out before the due time").isEmpty();
            for (String id : duplicated) {
                List<Handled> runs = handled.stream().filter(h -> h.id().equals(id)).toList();
                assertThat(runs).extracting(Handled::pid).as(id).contains(victim.pid(), survivor.pid());
                assertThat(runs.stream().filter(h -> h.pid() == victim.pid()).allMatch(h -> h.endedAt() <= killedAt)).isTrue();
            }
            // the jobs the victim held come back after its lease: the ones its workers had started as
            // far as Redis knows (running, or done and awaiting their ack: those, and only those, run
            // twice) with their attempt counted, the others with none spent
            assertThat(heldAtKill.all()).as("jobs handled twice were held by the victim at the kill").containsAll(duplicated);
            // PREFETCHED in Redis: its buffer, and jobs its workers had just taken whose start mark was on its way
            assertThat(prefetchedAtKill).as("the victim's buffer at the kill").isNotEmpty()
                    .hasSizeLessThanOrEqualTo(PREFETCH + CONCURRENCY);
            assertThat(handled.stream().filter(h -> h.pid() == survivor.pid() && prefetchedAtKill.contains(h.id())))
                    .as("prefetched jobs handed back with no attempt spent").isNotEmpty().allMatch(h -> h.attempt() == 1);
            List<Handled> recovered = handled.stream().filter(h -> h.pid() == survivor.pid() && h.attempt() > 1).toList();
            assertThat(recovered).extracting(Handled::id).as("attempts counted exactly for the jobs started by the victim")
                    .containsExactlyInAnyOrderElementsOf(runningAtKill);
            assertThat(runningAtKill).as("jobs started at the kill: running, or done and awaiting their ack")
                    .hasSizeLessThanOrEqualTo(CONCURRENCY + duplicated.size());
            long recoveredWithin = recovered.stream().mapToLong(Handled::startedAt).max().orElse(killedAt) - killedAt;

            RedisJobStore store = app.getBean(RedisJobStore.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> store.stats(whole(QUEUE)).running() == 0);
            QueueStats stats = store.stats(whole(QUEUE));
            assertThat(stats.delayed() + stats.ready() + stats.running() + stats.dead()).as("jobs left in Redis").isZero();
            assertThat(stats.instances()).extracting(QueueStats.ConsumerInstance::id).containsExactly("survivor");

            long maxLateness = handled.stream().mapToLong(Handled::lateness).max().orElseThrow();
            FaultReport.record("kill -9 of one of two consumer JVMs",
                    "published=" + JOBS + " handled=" + counts.size() + " handlerRuns=" + handled.size()
                            + " duplicated=" + duplicated.size() + " lost=" + (JOBS - counts.size())
                            + " early=0 handledByVictimBeforeKill=" + handledByVictim
                            + " heldByVictimAtKill=" + heldAtKill.all().size() + " (running " + runningAtKill.size()
                            + ", prefetched " + prefetchedAtKill.size() + ")"
                            + " recoveredJobsRestartedWithinMsOfKill=" + recoveredWithin
                            + " (lease 2s, sweep 250ms) allHandledMsAfterKill=" + (allHandledAt - killedAt)
                            + " maxLatenessMs=" + maxLateness
                            + " duplicatedIds=" + duplicated.stream().collect(Collectors.joining(",")));
        }
    }
}
