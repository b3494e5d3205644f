package dev.delayjobs.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.Redisson;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.JobInfo;
import dev.delayjobs.embeddedredis.RedisServerProcess;
import dev.delayjobs.fault.HandledLog.Handled;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/**
 * Compatibility mode under {@code kill -9}: producers offer to a Redisson {@code RDelayedQueue}
 * with plain Redisson, two consumer JVMs read it through the starter, and one is killed while its
 * handlers are in the middle of jobs. Every element is handled at least once, only the ones the
 * victim held run twice, none early, and nothing is left in Redisson's keys or the native queue.
 */
@Tag("slow")
@Tag("fault")
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class BridgedConsumerKillTest {

    private static final int ELEMENTS = 3000;
    private static final int CONCURRENCY = 8;
    private static final String QUEUE = "work";
    /** {@code "n":12} in the payload, quoted or not (the element is JSON text, stored as it was offered). */
    private static final Pattern ELEMENT_NUMBER = Pattern.compile("n\\\\?\":(\\d+)");

    @Test
    void consumerKilledMidHandlerLosesNoElementOfferedThroughRedisson() {
        String prefix = TestRedis.uniquePrefix();
        String list = "legacy-work-" + UUID.randomUUID();
        String[] settings = { "delay.heartbeat-interval=500ms", "delay.heartbeat-lease=2s", "delay.sweep-interval=250ms",
                "delay.queues." + QUEUE + ".redisson-delayed-queue=" + list, "delay.queues." + QUEUE + ".redisson-codec=string",
                "fault.id-from-payload=true" };
        try (RedisServerProcess redis = RedisServerProcess.start();
                ConsumerProcess victim = ConsumerProcess.start("victim", redis, prefix, QUEUE, CONCURRENCY, settings);
                ConsumerProcess survivor = ConsumerProcess.start("survivor", redis, prefix, QUEUE, CONCURRENCY, settings);
                ConfigurableApplicationContext app = TestApps.run("127.0.0.1", redis.port(), prefix, List.of())) {
            victim.awaitReady(Duration.ofSeconds(90));
            survivor.awaitReady(Duration.ofSeconds(90));
            RedissonClient producer = Redisson.create(singleServer(redis));
            try {
                // an old producer: JSON text through StringCodec, 10 ms of work each, due over 1.5 s:
                // more than the 1,600/s both consumers' workers handle, so they are busy at the kill
                RDelayedQueue<String> delayed = producer.getDelayedQueue(producer.getBlockingQueue(list, StringCodec.INSTANCE));
                Random random = new Random(42);
                List<CompletableFuture<Void>> offers = new ArrayList<>();
                for (int n = 0; n < ELEMENTS; n++) {
                    offers.add(delayed.offerAsync("{\"n\":" + n + ",\"firstWorkMs\":10,\"laterWorkMs\":10}",
                            random.nextInt(1500), TimeUnit.MILLISECONDS).toCompletableFuture());
                }
                CompletableFuture.allOf(offers.toArray(CompletableFuture[]::new)).join();

                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10))
                        .until(() -> HandledLog.read(List.of(victim.log())).size() >= 500);
                victim.kill();
                long killedAt = System.currentTimeMillis();
                // what the victim held at the kill, read before its lease (2 s) runs out
                HeldJobs heldAtKill = HeldJobs.read(redis, prefix, QUEUE, "victim", app.getBean(DelayPublisher.class),
                        BridgedConsumerKillTest::element);

                List<Path> logs = List.of(victim.log(), survivor.log());
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                        .until(() -> HandledLog.counts(HandledLog.read(logs)).size() == ELEMENTS);
                List<Handled> handled = HandledLog.read(logs);
                Map<String, Integer> counts = HandledLog.counts(handled);
                Set<String> duplicated = HandledLog.duplicated(handled);

                assertThat(counts.keySet()).as("every offered element handled")
                        .isEqualTo(IntStream.range(0, ELEMENTS).mapToObj(n -> "work-" + n).collect(Collectors.toSet()));
                assertThat(HandledLog.early(handled)).as("handed out before the due time").isEmpty();
                assertThat(heldAtKill.all()).as("the victim held jobs at the kill").isNotEmpty();
                assertThat(heldAtKill.all()).as("elements handled twice were held by the victim at the kill")
                        .containsAll(duplicated);
                for (String id : duplicated) {
                    assertThat(handled.stream().filter(h -> h.id().equals(id) && h.pid() == victim.pid())
                            .allMatch(h -> h.endedAt() <= killedAt)).isTrue();
                }
                // attempts counted for the jobs the victim had started as far as Redis knows, and only those
                Set<String> recovered = handled.stream().filter(h -> h.pid() == survivor.pid() && h.attempt() > 1)
                        .map(Handled::id).collect(Collectors.toSet());
                assertThat(recovered).as("jobs handed back with their attempt counted").isEqualTo(heldAtKill.running());
                assertThat(handled.stream().filter(h -> h.pid() == survivor.pid() && heldAtKill.prefetched().contains(h.id())))
                        .as("jobs handed back with no attempt spent").allMatch(h -> h.attempt() == 1);

                // nothing left behind: not in Redisson's timeout set, pending list or target list
                assertThat(producer.getScoredSortedSet("redisson_delay_queue_timeout:{" + list + "}").size()).isZero();
                assertThat(producer.getList("redisson_delay_queue:{" + list + "}").size()).isZero();
                assertThat(producer.getList(list).size()).isZero();

                FaultReport.record("kill -9 of one of two consumer JVMs, compatibility mode",
                        "offered=" + ELEMENTS + " handled=" + counts.size() + " handlerRuns=" + handled.size()
                                + " duplicated=" + duplicated.size() + " lost=" + (ELEMENTS - counts.size()) + " early=0"
                                + " heldByVictimAtKill=" + heldAtKill.all().size() + " (running " + heldAtKill.running().size()
                                + ", prefetched " + heldAtKill.prefetched().size() + ")");
            }
            finally {
                producer.shutdown();
            }
        }
    }

    /** The handled log's name for a job made from an element: {@code work-<n>}, from its payload. */
    private static String element(JobInfo job) {
        Matcher n = ELEMENT_NUMBER.matcher(job.payloadJson());
        assertThat(n.find()).as("element number in " + job.payloadJson()).isTrue();
        return "work-" + n.group(1);
    }

    private static Config singleServer(RedisServerProcess redis) {
        Config config = new Config();
        config.useSingleServer().setAddress(redis.url());
        return config;
    }
}
