package dev.delayjobs.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.PublishRequest;
import dev.delayjobs.embeddedredis.RedisServerProcess;
import dev.delayjobs.fault.ConsumerMain.Work;
import dev.delayjobs.fault.RunLog.Run;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/**
 * {@code group-concurrency=1} across three consumer JVMs, one of them killed with {@code kill -9}
 * while it runs jobs: no two jobs of one group ever run at the same time, as the handlers' own
 * start and end lines show ({@link RunLog}), and every job is handled.
 *
 * <p>A job the victim was running when it died has a start line and no end line: it ran until the
 * kill. Its group stays held (its claim entry counts it in {@code group-held}) until recovery hands
 * it back after the victim's lease ran out, so the group's next job starts after the kill, not
 * merely after the cut job's last line: the check takes the kill as that run's end.
 */
@Tag("slow")
@Tag("fault")
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class GroupExclusionKillTest {

    private static final String QUEUE = "work";
    private static final int GROUPS = 16;
    private static final int JOBS_PER_GROUP = 40;
    private static final int JOBS = GROUPS * JOBS_PER_GROUP;
    private static final long LEASE_MS = 2000;
    private static final long HEARTBEAT_MS = 500;

    @Test
    void noTwoJobsOfAGroupRunAtOnceAcrossThreeInstancesAndAKill() {
        String prefix = TestRedis.uniquePrefix();
        String[] settings = { "delay.heartbeat-interval=" + HEARTBEAT_MS + "ms", "delay.heartbeat-lease=" + LEASE_MS + "ms",
            "delay.sweep-interval=250ms", "delay.consumer.prefetch=4", "delay.queues." + QUEUE + ".group-concurrency=1",
            "fault.log-runs=true" };
        try (RedisServerProcess redis = RedisServerProcess.start();
                ConsumerProcess victim = ConsumerProcess.start("victim", redis, prefix, QUEUE, 4, settings);
                ConsumerProcess second = ConsumerProcess.start("second", redis, prefix, QUEUE, 4, settings);
                ConsumerProcess third = ConsumerProcess.start("third", redis, prefix, QUEUE, 4, settings);
                ConfigurableApplicationContext app = TestApps.run("127.0.0.1", redis.port(), prefix, List.of())) {
            List<ConsumerProcess> consumers = List.of(victim, second, third);
            consumers.forEach(c -> c.awaitReady(Duration.ofSeconds(90)));
            DelayPublisher publisher = app.getBean(DelayPublisher.class);

            // 16 groups of 40 jobs of 50 ms, due over 1 s: 12 workers for 16 groups, each group one
            // job at a time (2 s of work at least), so every worker is busy and groups wait for their turn
            Random random = new Random(7);
            Map<String, String> groupOf = new HashMap<>();
            List<PublishRequest> batch = new ArrayList<>();
            List<String> groups = new ArrayList<>();
            for (int i = 0; i < JOBS; i++) {
                String group = "order-" + (i % GROUPS);
                batch.add(PublishRequest.of(Work.of(i, 50)).delay(Duration.ofMillis(random.nextInt(1000)))
                        .key("job-" + i).group(group));
                groups.add(group);
            }
            List<String> ids = publisher.publishAll(QUEUE, batch);
            for (int i = 0; i < JOBS; i++) {
                groupOf.put(ids.get(i), groups.get(i));
            }

            // kill the victim while at least two of its handlers are in a job
            Path victimRuns = runs(victim);
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(5)).until(() -> {
                List<Run> runs = RunLog.read(List.of(victimRuns));
                return runs.stream().filter(Run::ended).count() >= 40
                        && runs.stream().filter(r -> !r.ended()).count() >= 2;
            });
            victim.kill();
            long killedAt = System.currentTimeMillis(); // the victim is dead: none of its lines is later
            // its lease as last renewed: recovery hands its jobs back only once this time has passed
            long leaseEnd = Long.parseLong((String) RedisCli.call(redis.port(), "ZSCORE",
                    prefix + ":{" + QUEUE + "}:instances", "victim"));

            List<Path> logs = consumers.stream().map(ConsumerProcess::log).toList();
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100))
                    .until(() -> HandledLog.counts(HandledLog.read(logs)).size() == JOBS);

            List<Run> runs = RunLog.read(consumers.stream().map(GroupExclusionKillTest::runs).toList());
            List<Run> cut = runs.stream().filter(r -> !r.ended()).toList();
            assertThat(cut).as("runs cut by the kill: the victim's, and only its").isNotEmpty()
                    .allMatch(r -> r.pid() == victim.pid() && r.startedAt() <= killedAt);
            assertThat(RunLog.overlaps(runs, groupOf::get, pid -> pid == victim.pid() ? killedAt : -1))
                    .as("jobs of one group that ran at the same time").isEmpty();
            assertThat(HandledLog.counts(HandledLog.read(logs)).keySet()).as("every job handled")
                    .containsExactlyInAnyOrderElementsOf(ids);
            // the slot of a cut job's group is freed by recovery, once the victim's lease has run out
            for (Run c : cut) {
                long nextStart = runs.stream().filter(r -> r.startedAt() > c.startedAt() && r.pid() != victim.pid()
                        && groupOf.get(r.id()).equals(groupOf.get(c.id()))).mapToLong(Run::startedAt).min().orElseThrow();
                assertThat(nextStart).as("the next job of " + groupOf.get(c.id()) + " starts after the victim's lease")
                        .isGreaterThanOrEqualTo(leaseEnd);
            }
            assertThat(RedisCli.call(redis.port(), "HKEYS", prefix + ":{" + QUEUE + "}:group-held"))
                    .as("no group held once all is done (the field '' is the rotation's turn counter)")
                    .isIn(List.of(), List.of(""));
            FaultReport.record("group-concurrency=1, kill -9 of one of three consumer JVMs",
                    "jobs=" + JOBS + " groups=" + GROUPS + " runs=" + runs.size() + " cutByKill=" + cut.size()
                            + " overlaps=0 handled=" + JOBS + " nextRunOfCutGroupsMsAfterKill>=" + (leaseEnd - killedAt));
        }
    }

    private static Path runs(ConsumerProcess consumer) {
        return Path.of(consumer.log() + ".runs");
    }
}
