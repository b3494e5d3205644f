package dev.delayjobs.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static dev.delayjobs.test.TestPartitions.whole;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayQueueException;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.PublishRequest;
import dev.delayjobs.embeddedredis.RedisServerProcess;
import dev.delayjobs.fault.HandledLog.Handled;
import dev.delayjobs.listener.ListenerContainerRegistry;
import dev.delayjobs.redis.QueueStats;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/**
 * A Redis at {@code maxmemory} under {@code maxmemory-policy noeviction}: a producer publishes
 * until Redis refuses, while consumers wait for the jobs to fall due; a second consumer instance
 * starts while Redis is full. Every refused publish fails at the call with a
 * {@link DelayQueueException} that says Redis is out of memory; every accepted job is handled once,
 * none early; the queue drains to empty from full (transfers, claims, acks, heartbeats and the new
 * instance's start all run while Redis refuses writes), and publishes are accepted again after.
 */
@Tag("slow")
@Tag("fault")
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class FullRedisTest {

    private static final String QUEUE = "full";
    /** Room above the memory Redis uses once the first app is connected: about 1,500 jobs of this payload. */
    private static final long ROOM_BYTES = 2 * 1024 * 1024;
    private static final String PAYLOAD_PADDING = "x".repeat(1000);
    /** Long enough for the producer to fill Redis before the first job falls due. */
    private static final Duration DELAY = Duration.ofSeconds(10);
    /** How far below the used memory the limit is set once Redis refuses publishes. */
    private static final long SQUEEZE_BYTES = 256 * 1024;
    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final int BATCH = 20;

    @Test
    void aFullRedisRefusesPublishesWithAnOutOfMemoryErrorAndTheQueueDrainsFromFull() throws Exception {
        String prefix = TestRedis.uniquePrefix();
        try (RedisServerProcess redis = RedisServerProcess.start("--maxmemory-policy", "noeviction");
                ConfigurableApplicationContext one = consumer(redis, prefix, "one");
                // its handler starts once Redis is full
                ConfigurableApplicationContext two = consumer(redis, prefix, "two", "delay.queues." + QUEUE
                        + ".auto-startup=false")) {
            DelayPublisher publisher = one.getBean(DelayPublisher.class);
            RedisJobStore store = one.getBean(RedisJobStore.class);
            long maxmemory = memory(redis, "used_memory") + ROOM_BYTES;
            RedisCli.call(redis.port(), "CONFIG", "SET", "maxmemory", Long.toString(maxmemory));

            // fill: batches of delayed jobs until Redis refuses a few in a row
            long startedAt = System.currentTimeMillis();
            Set<String> accepted = ConcurrentHashMap.newKeySet();
            long maxmemoryAtFirst = maxmemory;
            List<DelayQueueException> refusals = new CopyOnWriteArrayList<>();
            int refusedInARow = 0;
            for (int batch = 0; refusedInARow < 5; batch++) {
                List<PublishRequest> requests = new ArrayList<>();
                for (int i = 0; i < BATCH; i++) {
                    requests.add(PublishRequest.of(new Work(batch * BATCH + i, PAYLOAD_PADDING)).delay(DELAY));
                }
                try {
                    accepted.addAll(publisher.publishAll(QUEUE, requests));
                    refusedInARow = 0;
                }
                catch (DelayQueueException refused) {
                    refusals.add(refused);
                    refusedInARow++;
                }
            }
            long filledAt = System.currentTimeMillis();
            int acceptedWhenFull = accepted.size();
            // at the limit, used memory moves with the connections' buffers, which shrink as the
            // connections go idle (once by 870 KB within the next seconds, on a loaded machine): the
            // limit is set below what the rest takes, so that Redis stays full until the consumers
            // have freed that much, whatever the buffers do
            long usedWhenFull = memory(redis, "used_memory");
            long clientsWhenFull = memory(redis, "mem_clients_normal");
            maxmemory = usedWhenFull - clientsWhenFull - SQUEEZE_BYTES;
            int squeezes = 0;
            RedisCli.call(redis.port(), "CONFIG", "SET", "maxmemory", Long.toString(maxmemory));

            // a consumer that starts while Redis is full: registers the queue, heartbeats, hands back
            // what its instance id held before, claims
            two.getBean(ListenerContainerRegistry.class).getContainer(QUEUE).orElseThrow().start();
            // longer than the lease: the leases are renewed while full (a lapsed one would let
            // the other instance recover jobs its owner still runs). Memory that is not the jobs'
            // is freed meanwhile (in a loaded full build once 750 KB within these 3 s, below the
            // limit): the limit follows used memory down, so that Redis stays full throughout
            long fullUntil = System.currentTimeMillis() + LEASE.toMillis() + 1000;
            while (System.currentTimeMillis() < fullUntil) {
                long used = memory(redis, "used_memory");
                if (used - SQUEEZE_BYTES / 2 < maxmemory) {
                    maxmemory = used - SQUEEZE_BYTES;
                    RedisCli.call(redis.port(), "CONFIG", "SET", "maxmemory", Long.toString(maxmemory));
                    squeezes++;
                }
                sleep(100);
            }
            QueueStats whileFull = store.stats(whole(QUEUE));
            assertThat(whileFull.instances()).as("consumer leases while Redis is full").hasSize(2)
                    .allSatisfy(instance -> assertThat(instance.leaseDeadline()).isGreaterThan(whileFull.serverNow()));
            assertThat(whileFull.ready() + whileFull.running()).as("jobs due before the leases were checked").isZero();
            assertThatThrownBy(() -> RedisCli.call(redis.port(), "SET", prefix + ":full-check", "x"))
                    .as("a write that adds data while the leases were checked").hasMessageContaining("OOM");
            // a publish every 10 ms meanwhile: refused until the consumers have freed memory. Until a
            // probe is refused after a job has been handled, the limit is kept a squeeze below used
            // memory before each probe: memory that is not the jobs' (a reply buffer, say) may be
            // freed at any time, and once the jobs fall due the consumers free a squeeze's worth in
            // tens of milliseconds (in a loaded full build the last refusal came just before the
            // first job started, and the next probe got in). After that refusal the limit stays, so
            // Redis accepts writes again once the consumers have freed a squeeze
            FullRedisHandler first = one.getBean(FullRedisHandler.class);
            FullRedisHandler second = two.getBean(FullRedisHandler.class);
            AtomicBoolean probing = new AtomicBoolean(true);
            List<Long> refusedAt = new CopyOnWriteArrayList<>();
            AtomicBoolean refusedAfterAJob = new AtomicBoolean();
            long squeezedTo = maxmemory;
            Thread prober = new Thread(() -> {
                int n = 0;
                long limit = squeezedTo;
                while (probing.get()) {
                    boolean jobHandled = !first.handled.isEmpty() || !second.handled.isEmpty();
                    if (!refusedAfterAJob.get()) {
                        limit = Math.min(limit, memory(redis, "used_memory") - SQUEEZE_BYTES);
                        RedisCli.call(redis.port(), "CONFIG", "SET", "maxmemory", Long.toString(limit));
                    }
                    try {
                        accepted.add(publisher.publish(QUEUE, PublishRequest.of(new Work(-1 - n, "probe"))
                                .key("probe-" + n++).delay(Duration.ZERO)));
                        probing.set(false);
                    }
                    catch (DelayQueueException refused) {
                        refusals.add(refused);
                        refusedAt.add(System.currentTimeMillis());
                        refusedAfterAJob.compareAndSet(false, jobHandled);
                    }
                    sleep(10);
                }
            }, "full-redis-prober");
            prober.start();

            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100))
                    .until(() -> !probing.get() && handledIds(first, second).containsAll(accepted));
            prober.join();
            long drainedAt = System.currentTimeMillis();
            await().atMost(Duration.ofSeconds(10)).until(() -> store.stats(whole(QUEUE)).running() == 0);

            List<Handled> handled = all(first, second);
            Map<String, Integer> counts = HandledLog.counts(handled);
            assertThat(counts.keySet()).as("handled jobs").isEqualTo(accepted);
            assertThat(HandledLog.duplicated(handled)).as("handled twice").isEmpty();
            assertThat(HandledLog.early(handled)).as("handled early").isEmpty();
            assertThat(refusals).as("refused publishes").hasSizeGreaterThanOrEqualTo(5)
                    .allSatisfy(refused -> assertThat(refused).hasMessageContaining("Redis is out of memory")
                            .hasMessageContaining("publish to queue '" + QUEUE + "'"));
            long lastRefusal = refusedAt.isEmpty() ? filledAt : refusedAt.get(refusedAt.size() - 1);
            assertThat(handled).as("jobs handled while Redis still refused writes")
                    .anyMatch(h -> h.startedAt() < lastRefusal);
            assertThat(second.handled).as("the instance started while full works").isNotEmpty();
            QueueStats stats = store.stats(whole(QUEUE));
            assertThat(stats.delayed() + stats.ready() + stats.running() + stats.dead()).as("jobs left").isZero();
            assertThat(stats.instances()).extracting(QueueStats.ConsumerInstance::held).containsOnly(0L);

            FaultReport.record("Redis full (maxmemory " + maxmemoryAtFirst + " B, then " + maxmemory + " B once full, "
                    + "noeviction), two instances, one started while full", "accepted=" + accepted.size() + " acceptedWhileFilling=" + acceptedWhenFull
                    + " refused=" + refusals.size() + " (batches of " + BATCH + " while filling, then single probes)"
                    + " handled=" + counts.size() + " duplicated=0 early=0 fillMs=" + (filledAt - startedAt)
                    + " usedWhenFull=" + usedWhenFull + " clientsWhenFull=" + clientsWhenFull + " squeezedAgain=" + squeezes + " refusedForMs=" + (lastRefusal - filledAt)
                    + " handledBeforeLastRefusal=" + handled.stream().filter(h -> h.startedAt() < lastRefusal).count()
                    + " drainedMsAfterFull=" + (drainedAt - filledAt));
        }
    }

    /** A job of this test: its number, and padding that makes its record about 1 KB. */
    public record Work(int n, String padding) {
    }

    /** Records each job it handles; a millisecond of work each. */
    static class FullRedisHandler {

        final List<Handled> handled = new CopyOnWriteArrayList<>();

        @DelayedHandler(queue = "${fault.queue}", concurrency = "4")
        void handle(DelayedJob<Work> job) throws InterruptedException {
            long startedAt = System.currentTimeMillis();
            Thread.sleep(1);
            handled.add(new Handled(job.id(), job.attempt(), startedAt, job.dueAt().toEpochMilli(),
                    System.currentTimeMillis(), 0));
        }
    }

    private static ConfigurableApplicationContext consumer(RedisServerProcess redis, String prefix, String id,
            String... more) {
        List<String> properties = new ArrayList<>(List.of("fault.queue=" + QUEUE, "delay.instance-id=" + id,
                "delay.consumer.prefetch=4", "delay.sweep-interval=250ms", "delay.heartbeat-interval=500ms",
                "delay.heartbeat-lease=" + LEASE.toMillis() + "ms"));
        properties.addAll(List.of(more));
        return TestApps.run("127.0.0.1", redis.port(), prefix, List.of(FullRedisHandler.class),
                properties.toArray(String[]::new));
    }

    private static long memory(RedisServerProcess redis, String field) {
        String info = (String) RedisCli.call(redis.port(), "INFO", "memory");
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(field + ":")) {
                return Long.parseLong(line.substring(field.length() + 1).trim());
            }
        }
        throw new IllegalStateException("INFO memory has no " + field + ": " + info);
    }

    private static Set<String> handledIds(FullRedisHandler first, FullRedisHandler second) {
        return HandledLog.counts(all(first, second)).keySet();
    }

    private static List<Handled> all(FullRedisHandler first, FullRedisHandler second) {
        List<Handled> all = new ArrayList<>(first.handled);
        all.addAll(second.handled);
        return all;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
