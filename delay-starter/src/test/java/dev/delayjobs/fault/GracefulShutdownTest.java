package dev.delayjobs.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static dev.delayjobs.test.TestPartitions.whole;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.PublishRequest;
import dev.delayjobs.fault.ConsumerMain.Work;
import dev.delayjobs.fault.HandledLog.Handled;
import dev.delayjobs.redis.QueueStats;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.embeddedredis.RedisServerProcess;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/**
 * Scenario 6: a consumer JVM is stopped the way orchestrators stop it ({@code SIGTERM}) while it
 * is busy. Short jobs it is running finish there; long ones are interrupted after the shutdown
 * timeout and handed back at once, so another consumer runs them long before the heartbeat lease
 * (60 s here) could have expired. Nothing is lost and nothing runs twice.
 */
@Tag("slow")
@Tag("fault")
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class GracefulShutdownTest {

    private static final String QUEUE = "busy";
    private static final int SHORT_JOBS = 1500;
    private static final int LONG_JOBS = 4;

    @Test
    void sigtermDuringLoadFinishesOrHandsBackRunningJobsAtOnce() {
        String prefix = TestRedis.uniquePrefix();
        String[] settings = { "delay.shutdown-timeout=1s", "delay.heartbeat-interval=5s", "delay.heartbeat-lease=60s",
                "delay.sweep-interval=250ms" };
        try (RedisServerProcess redis = RedisServerProcess.start();
                ConsumerProcess stopping = ConsumerProcess.start("stopping", redis, prefix, QUEUE, 8, settings);
                ConfigurableApplicationContext app = TestApps.run("127.0.0.1", redis.port(), prefix, List.of())) {
            stopping.awaitReady(Duration.ofSeconds(90));
            DelayPublisher publisher = app.getBean(DelayPublisher.class);
            RedisJobStore store = app.getBean(RedisJobStore.class);

            // long jobs first, while only the consumer to be stopped runs: it takes all of them.
            // They take a minute on their first delivery and 10 ms on any later one.
            Set<String> published = new HashSet<>();
            for (int i = 0; i < LONG_JOBS; i++) {
                published.add(publisher.publish(QUEUE, new Work(i, 60_000, 10), Duration.ZERO, "long-" + i));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> store.stats(whole(QUEUE)).running() == LONG_JOBS);

            try (ConsumerProcess staying = ConsumerProcess.start("staying", redis, prefix, QUEUE, 8, settings)) {
                staying.awaitReady(Duration.ofSeconds(90));
                Random random = new Random(7);
                for (int from = 0; from < SHORT_JOBS; from += 500) {
                    List<PublishRequest> batch = new ArrayList<>();
                    for (int i = from; i < from + 500; i++) {
                        batch.add(PublishRequest.of(Work.of(i, 20)).delay(Duration.ofMillis(random.nextInt(3000))).key("short-" + i));
                    }
                    published.addAll(publisher.publishAll(QUEUE, batch));
                }

                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10))
                        .until(() -> HandledLog.read(List.of(stopping.log())).size() >= 150);
                long sigtermAt = System.currentTimeMillis();
                stopping.terminate();
                assertThat(stopping.waitForExit(Duration.ofSeconds(30))).as("the consumer exits").isTrue();
                long exitedAfter = System.currentTimeMillis() - sigtermAt;

                List<Path> logs = List.of(stopping.log(), staying.log());
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                        .until(() -> HandledLog.counts(HandledLog.read(logs)).size() == published.size());
                long drainedAfter = System.currentTimeMillis() - sigtermAt;
                List<Handled> handled = HandledLog.read(logs);

                assertThat(HandledLog.counts(handled).keySet()).isEqualTo(published);
                assertThat(HandledLog.duplicated(handled)).as("handled twice").isEmpty();
                assertThat(HandledLog.early(handled)).isEmpty();
                List<Handled> longRuns = handled.stream().filter(h -> h.id().startsWith("long-")).toList();
                assertThat(longRuns).as("long jobs handed back and run by the other consumer")
                        .allMatch(h -> h.pid() == staying.pid() && h.attempt() == 2);
                long longJobsRestartedAfter = longRuns.stream().mapToLong(Handled::startedAt).max().orElseThrow() - sigtermAt;
                assertThat(longJobsRestartedAfter).as("handed back at once, not after the 60 s lease").isLessThan(15_000);
                long finishedDuringShutdown = handled.stream()
                        .filter(h -> h.pid() == stopping.pid() && h.endedAt() >= sigtermAt).count();
                assertThat(stopping.output()).contains("interrupted by shutdown; handing it back");

                await().atMost(Duration.ofSeconds(10)).until(() -> store.stats(whole(QUEUE)).running() == 0);
                QueueStats stats = store.stats(whole(QUEUE));
                assertThat(stats.delayed() + stats.ready() + stats.dead()).isZero();
                assertThat(stats.instances()).extracting(QueueStats.ConsumerInstance::id).containsExactly("staying");

                FaultReport.record("SIGTERM of one of two busy consumer JVMs (shutdown-timeout 1s, lease 60s)",
                        "published=" + published.size() + " handled=" + HandledLog.counts(handled).size()
                                + " duplicated=0 lost=0 handledByStoppedJvm="
                                + handled.stream().filter(h -> h.pid() == stopping.pid()).count()
                                + " finishedAfterSigterm=" + finishedDuringShutdown + " jvmExitedMsAfterSigterm="
                                + exitedAfter + " longJobsInterruptedAndHandedBack=" + longRuns.size()
                                + " longJobsRestartedWithinMsOfSigterm=" + longJobsRestartedAfter
                                + " allHandledMsAfterSigterm=" + drainedAfter);
            }
        }
    }
}
