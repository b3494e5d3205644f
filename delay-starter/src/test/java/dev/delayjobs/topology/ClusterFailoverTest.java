package dev.delayjobs.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayQueueException;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.embeddedredis.RedisCluster;
import dev.delayjobs.embeddedredis.RedisServerProcess;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/**
 * The master of a queue's shard is killed while jobs are published and consumed, with
 * {@code confirm-replicas=1}: its replica takes over; publishes are refused while the new master has
 * no replica, go through again once the old master is back as its replica, and every publish that
 * returned is handled.
 */
@Tag("slow")
@Tag("topology")
class ClusterFailoverTest {

    static class Handler {

        final Set<String> handled = ConcurrentHashMap.newKeySet();

        @DelayedHandler(queue = "failover", concurrency = "4")
        void handle(DelayedJob<Integer> job) {
            handled.add(job.id());
        }
    }

    @Test
    void everyConfirmedPublishIsHandledAcrossTheFailoverOfItsMaster() throws InterruptedException {
        try (RedisCluster cluster = RedisCluster.start(3, 1, Duration.ofSeconds(2));
                ConfigurableApplicationContext app = TestApps.runOn(List.of("spring.data.redis.cluster.nodes=" + cluster.nodes()),
                        TestRedis.uniquePrefix(), List.of(Handler.class), "delay.publisher.confirm-replicas=1",
                        "delay.sweep-interval=500ms")) {
            DelayPublisher publisher = app.getBean(DelayPublisher.class);
            Handler handler = app.getBean(Handler.class);
            RedisServerProcess master = cluster.masterOf("{failover}");
            ConcurrentLinkedQueue<String> acknowledged = new ConcurrentLinkedQueue<>();
            AtomicInteger refused = new AtomicInteger();
            AtomicBoolean publishing = new AtomicBoolean(true);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                String name = "t" + t;
                Thread thread = new Thread(() -> {
                    for (int i = 0; publishing.get(); i++) {
                        String key = name + "-" + i;
                        try {
                            publisher.publish("failover", i, Duration.ofMillis(200), key);
                            acknowledged.add(key);
                        }
                        catch (DelayQueueException ex) {
                            refused.incrementAndGet();
                        }
                    }
                });
                thread.start();
                threads.add(thread);
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> handler.handled.size() > 200);
            master.kill();
            await().atMost(Duration.ofSeconds(60)).until(() -> cluster.masterOf("{failover}").port() != master.port());
            // the new master has no replica to confirm publishes until the old one comes back as one:
            // meanwhile every publish is refused (confirm-replicas trades availability for durability)
            int atFailover = acknowledged.size();
            int refusedAtFailover = refused.get();
            await().atMost(Duration.ofSeconds(30)).until(() -> refused.get() > refusedAtFailover);
            master.restart();
            await().atMost(Duration.ofSeconds(60)).until(() -> acknowledged.size() > atFailover + 200);
            publishing.set(false);
            for (Thread thread : threads) {
                thread.join();
            }

            await().atMost(Duration.ofSeconds(60)).until(() -> handler.handled.containsAll(acknowledged));
            System.out.println("cluster failover with confirm-replicas=1: acknowledged=" + acknowledged.size()
                    + " refused=" + refused.get() + " handled=" + handler.handled.size());
        }
    }
}
