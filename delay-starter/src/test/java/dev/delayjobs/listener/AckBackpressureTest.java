package dev.delayjobs.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import dev.delayjobs.embeddedredis.RedisServerProcess;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.store.StoredJob;
import dev.delayjobs.queue.Partition;
import dev.delayjobs.queue.QueueName;

/**
 * Pending acks are bounded per queue: while Redis does not answer, the ackers fall behind, and once
 * the queue's {@link PendingAcks} are all taken, the next worker waits instead of queueing without
 * bound, whichever partition its job came from; it goes on as soon as Redis answers again.
 */
class AckBackpressureTest {

    private RedisServerProcess redis;
    private RedissonClient redisson;
    private final AtomicInteger settled = new AtomicInteger();

    @BeforeEach
    void startRedis() {
        redis = RedisServerProcess.start();
        Config config = new Config();
        config.useSingleServer().setAddress(redis.url());
        redisson = Redisson.create(config);
    }

    @AfterEach
    void stopRedis() {
        redis.resume();
        redisson.shutdown();
        redis.close();
    }

    @Test
    void aWorkerWaitsOnceTheMaximumOfPendingAcksIsReached() throws Exception {
        AckBatcher acks = acker(QueueName.of("q").whole(), new PendingAcks());
        try {
            redis.pause();
            int total = PendingAcks.MAX + 1;
            CompletableFuture<Void> worker = CompletableFuture.runAsync(() -> {
                for (int i = 0; i < total; i++) {
                    acks.add(job("j" + i));
                }
            });
            await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> !worker.isDone());

            redis.resume();
            worker.get(120, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(120)).until(() -> settled.get() == total);
        }
        finally {
            redis.resume();
            acks.stop(Duration.ofSeconds(10));
        }
    }

    /** Two partitions of one queue, each with its acker and its workers: together they hold at most the cap. */
    @Test
    void thePartitionsOfAQueueShareOneCap() throws Exception {
        int cap = 1_200; // more than two ack batches, so that in-flight batches count too
        PendingAcks places = new PendingAcks(cap);
        List<AckBatcher> ackers = Partition.all(QueueName.of("q"), 2).stream().map(p -> acker(p, places)).toList();
        AtomicInteger handled = new AtomicInteger();
        int perPartition = cap + 1; // neither partition can finish within the cap alone
        try {
            redis.pause();
            List<CompletableFuture<Void>> workers = ackers.stream().map(acks -> CompletableFuture.runAsync(() -> {
                for (int i = 0; i < perPartition; i++) {
                    acks.add(job("j" + i));
                    handled.incrementAndGet();
                }
            })).toList();
            // both workers hand over acks until the queue's places run out, then wait
            await().atMost(Duration.ofSeconds(30)).until(() -> handled.get() >= cap);
            await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3))
                    .until(() -> handled.get() == cap && workers.stream().noneMatch(CompletableFuture::isDone));
            assertThat(places.free()).isZero();

            redis.resume();
            CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(120)).until(() -> settled.get() == 2 * perPartition);
            assertThat(places.free()).as("every place given back").isEqualTo(cap);
        }
        finally {
            redis.resume();
            ackers.forEach(acks -> acks.stop(Duration.ofSeconds(10)));
        }
    }

    private AckBatcher acker(Partition partition, PendingAcks places) {
        AckBatcher acker = new AckBatcher(new RedisJobStore(redisson, "bp").partition(partition), "i1", places,
                job -> settled.incrementAndGet(), lost -> settled.addAndGet(lost.size()));
        acker.start();
        return acker;
    }

    private static StoredJob job(String id) {
        return new StoredJob(id, "1", 1, 0, 0, "1", Map.of());
    }
}
