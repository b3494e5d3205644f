package dev.delayjobs.bridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static dev.delayjobs.test.TestPartitions.whole;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.bridge.BridgeHandlers.Closed;
import dev.delayjobs.bridge.RedissonQueueMigration.Result;
import dev.delayjobs.embeddedredis.RespConnection;
import dev.delayjobs.redis.QueueStats;
import dev.delayjobs.redis.QueueTestOperations;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;
import dev.delayjobs.queue.QueueName;

/**
 * Leaving compatibility mode: 100,000 elements pending in an {@code RDelayedQueue}, 1,000 of them
 * falling due while the migration runs (so Redisson's transfer and the starter's adopter move
 * elements at the same time), the migration interrupted once and run again. Afterwards every
 * element is exactly one native job: each is handled once when its due time comes.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
@Tag("slow")
@Tag("bridge")
class RedissonQueueMigrationTest {

    private static final int PENDING = 100_000;
    private static final int DUE_DURING = 1_000;

    @Test
    void migratesEveryPendingElementOnceThoughInterruptedAndRunAgain() throws Exception {
        String list = "legacy-" + UUID.randomUUID();
        String prefix = TestRedis.uniquePrefix();
        try (LegacyProducer producer = new LegacyProducer(list, StringCodec.INSTANCE);
                ConfigurableApplicationContext app = TestApps.run(prefix, List.of(BridgeHandlers.class), "test.queue=" + list,
                        "delay.queues." + list + ".redisson-delayed-queue=" + list,
                        "delay.queues." + list + ".redisson-codec=string")) {
            offerAll(producer.client(), list);
            slowLog("CONFIG", "SET", "slowlog-log-slower-than", "1000");
            slowLog("SLOWLOG", "RESET");
            RedisJobStore store = app.getBean(RedisJobStore.class);
            RedissonQueueMigration migration = app.getBean(RedissonQueueMigration.class);
            Closed closed = app.getBean(Closed.class);

            // interrupted once it has moved part of the backlog
            AtomicReference<Result> first = new AtomicReference<>();
            Thread interrupted = new Thread(() -> first.set(migration.migrate(list)), "migration");
            interrupted.start();
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(5))
                    .until(() -> nativeDelayed(store.stats(whole(list))) >= 20_000);
            interrupted.interrupt();
            interrupted.join(30_000);
            assertThat(first.get().complete()).as("the interrupted run says it did not finish").isFalse();
            assertThat(store.stats(whole(list)).bridge().delayed()).as("elements left for the second run").isPositive();

            Result second = migration.migrate(list);
            long slowestScriptMicros = slowestScriptMicros();
            assertThat(second.complete()).isTrue();
            assertThat(first.get().dead() + second.dead()).isZero();
            QueueStats after = store.stats(whole(list));
            assertThat(after.bridge().delayed()).as("left in Redisson's timeout set").isZero();
            assertThat(after.bridge().ready()).as("left in the target list").isZero();

            // the elements that fell due are handled; the rest wait as native jobs, once each
            await().atMost(Duration.ofSeconds(30)).until(() -> closed.handledAt.size() == DUE_DURING);
            assertThat(nativeDelayed(store.stats(whole(list)))).isEqualTo(PENDING - DUE_DURING);
            new QueueTestOperations(app.getBean(RedissonClient.class), prefix).fastForward(QueueName.of(list).whole(), Duration.ofHours(3));
            await().atMost(Duration.ofSeconds(120)).until(() -> closed.handledAt.size() == PENDING);
            assertThat(closed.twice).as("handled twice").isEmpty();
            QueueStats atLastHandler = store.stats(whole(list));
            // the last acks are recorded a moment after their handlers return (a batch per call)
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                QueueStats left = store.stats(whole(list));
                assertThat(left.delayed() + left.ready() + left.running() + left.dead()).as("left: %s", left).isZero();
            });
            QueueStats end = store.stats(whole(list));
            assertThat(end.totals().get("completed")).isEqualTo(PENDING);

            System.out.println("[migration] " + PENDING + " elements (" + DUE_DURING + " due during it): interrupted run "
                    + first.get().jobs() + " jobs in " + first.get().calls() + " calls, longest "
                    + first.get().longestCall().toMillis() + " ms; second run " + second.jobs() + " jobs in "
                    + second.calls() + " calls, longest " + second.longestCall().toMillis() + " ms (round trip, as timed by "
                    + "the client); longest script in Redis during both: " + slowestScriptMicros + " us (SLOWLOG); when the "
                    + "last handler ran: " + atLastHandler.ready() + " ready, " + atLastHandler.running() + " running (acks on "
                    + "their way)");
        }
    }

    private static Object slowLog(String... command) {
        try (RespConnection redis = new RespConnection(TestRedis.host(), TestRedis.port())) {
            return redis.call(command);
        }
    }

    /** The longest script call SLOWLOG kept (those over 1 ms; 0 when none), in microseconds. */
    private static long slowestScriptMicros() {
        long slowest = 0;
        for (Object entry : (List<?>) slowLog("SLOWLOG", "GET", "1000")) {
            List<?> fields = (List<?>) entry;
            String command = String.valueOf(((List<?>) fields.get(3)).get(0)).toLowerCase(java.util.Locale.ROOT);
            if (command.startsWith("eval")) {
                slowest = Math.max(slowest, (Long) fields.get(2));
            }
        }
        slowLog("CONFIG", "SET", "slowlog-log-slower-than", "10000");
        return slowest;
    }

    /** The queue's stats count the Redisson queue's elements in; the native part alone. */
    private static long nativeDelayed(QueueStats stats) {
        return stats.delayed() - stats.bridge().delayed();
    }

    @Test
    void refusesQueuesThatBridgeNothing() {
        String list = "legacy-" + UUID.randomUUID();
        try (ConfigurableApplicationContext app = TestApps.run(TestRedis.uniquePrefix(), List.of(BridgeHandlers.class),
                "test.queue=" + list, "delay.queues." + list + ".redisson-delayed-queue=" + list,
                "delay.queues." + list + ".redisson-codec=string")) {
            assertThatThrownBy(() -> app.getBean(RedissonQueueMigration.class).migrate("native-queue"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Queue 'native-queue' does not bridge a Redisson RDelayedQueue");
        }
    }

    /**
     * 99,000 elements due in 1-2 hours, then 1,000 due 0.3-3.3 s after they are offered (while the
     * migration that starts next runs), offered 1,000 at a time.
     */
    private static void offerAll(RedissonClient client, String list) {
        RDelayedQueue<String> queue = client.getDelayedQueue(client.getBlockingQueue(list, StringCodec.INSTANCE));
        List<CompletableFuture<Void>> inFlight = new ArrayList<>();
        for (int n = 0; n < PENDING; n++) {
            long delayMs = n < PENDING - DUE_DURING ? 3_600_000 + (n * 37L) % 3_600_000 : 300 + (n * 7L) % 3000;
            inFlight.add(queue.offerAsync("{\"orderId\":" + n + ",\"reason\":\"unpaid\"}", delayMs, TimeUnit.MILLISECONDS)
                    .toCompletableFuture());
            if (inFlight.size() == 1000) {
                CompletableFuture.allOf(inFlight.toArray(CompletableFuture[]::new)).join();
                inFlight.clear();
            }
        }
        CompletableFuture.allOf(inFlight.toArray(CompletableFuture[]::new)).join();
    }
}
