package dev.delayjobs.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.Redisson;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import dev.delayjobs.embeddedredis.RedisServerProcess;
import dev.delayjobs.fault.HandledLog.Handled;
import dev.delayjobs.test.TestRedis;

/**
 * Compatibility mode under {@code kill -9}: producers offer to a Redisson {@code RDelayedQueue}
 * with plain Redisson, two consumer JVMs read it through the starter, and one is killed while its
 * handlers are in the middle of jobs. Every element is handled at least once, only the ones the
 * victim held run twice, none early, and nothing is left in Redisson's keys or the native queue.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class BridgedConsumerKillTest {

    private static final int ELEMENTS = 3000;
    private static final int CONCURRENCY = 8;
    private static final String QUEUE = "work";

    @Test
    void consumerKilledMidHandlerLosesNoElementOfferedThroughRedisson() {
        String prefix = TestRedis.uniquePrefix();
        String list = "legacy-work-" + UUID.randomUUID();
        String[] settings = { "delay.heartbeat-interval=500ms", "delay.heartbeat-lease=2s", "delay.sweep-interval=250ms",
                "delay.queues." + QUEUE + ".redisson-delayed-queue=" + list, "delay.queues." + QUEUE + ".redisson-codec=string",
                "fault.id-from-payload=true" };
        try (RedisServerProcess redis = RedisServerProcess.start();
                ConsumerProcess victim = ConsumerProcess.start("victim", redis, prefix, QUEUE, CONCURRENCY, settings);
                ConsumerProcess survivor = ConsumerProcess.start("survivor", redis, prefix, QUEUE, CONCURRENCY, settings)) {
            victim.awaitReady(Duration.ofSeconds(90));
            survivor.awaitReady(Duration.ofSeconds(90));
            RedissonClient producer = Redisson.create(singleServer(redis));
            try {
                // an old producer: JSON text through StringCodec, due over 4 s, 10 ms of work each
                RDelayedQueue<String> delayed = producer.getDelayedQueue(producer.getBlockingQueue(list, StringCodec.INSTANCE));
                Random random = new Random(42);
                for (int n = 0; n < ELEMENTS; n++) {
                    delayed.offer("{\"n\":" + n + ",\"firstWorkMs\":10,\"laterWorkMs\":10}", random.nextInt(4000),
                            TimeUnit.MILLISECONDS);
                }

                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10))
                        .until(() -> HandledLog.read(List.of(victim.log())).size() >= 500);
                victim.kill();
                long killedAt = System.currentTimeMillis();

                List<Path> logs = List.of(victim.log(), survivor.log());
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                        .until(() -> HandledLog.counts(HandledLog.read(logs)).size() == ELEMENTS);
                List<Handled> handled = HandledLog.read(logs);
                Map<String, Integer> counts = HandledLog.counts(handled);
                Set<String> duplicated = HandledLog.duplicated(handled);

                assertThat(counts.keySet()).as("every offered element handled")
                        .isEqualTo(IntStream.range(0, ELEMENTS).mapToObj(n -> "work-" + n).collect(Collectors.toSet()));
                assertThat(HandledLog.early(handled)).as("handed out before the due time").isEmpty();
                Set<String> recovered = handled.stream().filter(h -> h.pid() == survivor.pid() && h.attempt() > 1)
                        .map(Handled::id).collect(Collectors.toSet());
                assertThat(recovered).as("elements handled twice were jobs the victim held at the kill").containsAll(duplicated);
                for (String id : duplicated) {
                    assertThat(handled.stream().filter(h -> h.id().equals(id) && h.pid() == victim.pid())
                            .allMatch(h -> h.endedAt() <= killedAt)).isTrue();
                }
                assertThat(recovered.size()).as("jobs held at the kill").isBetween(1, CONCURRENCY + duplicated.size());

                // nothing left behind: not in Redisson's timeout set, pending list or target list
                assertThat(producer.getScoredSortedSet("redisson_delay_queue_timeout:{" + list + "}").size()).isZero();
                assertThat(producer.getList("redisson_delay_queue:{" + list + "}").size()).isZero();
                assertThat(producer.getList(list).size()).isZero();

                FaultReport.record("kill -9 of one of two consumer JVMs, compatibility mode",
                        "offered=" + ELEMENTS + " handled=" + counts.size() + " handlerRuns=" + handled.size()
                                + " duplicated=" + duplicated.size() + " lost=" + (ELEMENTS - counts.size()) + " early=0"
                                + " heldByVictimAtKill=" + recovered.size());
            }
            finally {
                producer.shutdown();
            }
        }
    }

    private static Config singleServer(RedisServerProcess redis) {
        Config config = new Config();
        config.useSingleServer().setAddress(redis.url());
        return config;
    }
}
