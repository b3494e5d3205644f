package dev.delayjobs.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import org.redisson.config.ReadMode;
import org.redisson.config.SentinelServersConfig;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayQueueException;
import dev.delayjobs.embeddedredis.RedisSentinelGroup;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/**
 * A failover forced while four threads publish: which acknowledged publishes are gone afterwards,
 * without replica confirmation and with {@code confirm-replicas=1}. With it, none may be; without
 * it, the figures are printed (docs/reliability.md has them).
 */
@Tag("slow")
@Tag("topology")
class SentinelFailoverTest {

    @Test
    void noAcknowledgedPublishIsLostInAFailoverWhenAReplicaConfirmsEach() throws InterruptedException {
        Outcome unconfirmed = publishThroughAFailover(false);
        Outcome confirmed = publishThroughAFailover(true);
        System.out.println("failover while publishing, without confirmation: " + unconfirmed);
        System.out.println("failover while publishing, confirm-replicas=1:    " + confirmed);

        assertThat(confirmed.lost()).as("acknowledged, then lost, with confirm-replicas=1").isEmpty();
        assertThat(confirmed.acknowledged()).as("publishing went on around the failover").isGreaterThan(100);
        assertThat(unconfirmed.acknowledged()).isGreaterThan(100);
    }

    private static Outcome publishThroughAFailover(boolean confirm) throws InterruptedException {
        try (RedisSentinelGroup group = RedisSentinelGroup.start(1, Duration.ofSeconds(5));
                ConfigurableApplicationContext app = TestApps.runOn(
                        List.of("spring.data.redis.sentinel.master=" + RedisSentinelGroup.MASTER_NAME,
                                "spring.data.redis.sentinel.nodes=" + group.sentinelNodes()),
                        TestRedis.uniquePrefix(), List.of(), "delay.publisher.confirm-replicas=" + (confirm ? 1 : 0))) {
            DelayPublisher publisher = app.getBean(DelayPublisher.class);
            ConcurrentLinkedQueue<String> acknowledged = new ConcurrentLinkedQueue<>();
            AtomicInteger refused = new AtomicInteger();
            AtomicBoolean publishing = new AtomicBoolean(true);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                String thread = "t" + t;
                Thread publishingThread = new Thread(() -> {
                    for (int i = 0; publishing.get(); i++) {
                        String key = thread + "-" + i;
                        try {
                            publisher.publish("failover", i, Duration.ofHours(1), key);
                            acknowledged.add(key);
                        }
                        catch (DelayQueueException ex) {
                            refused.incrementAndGet();
                        }
                    }
                });
                publishingThread.start();
                threads.add(publishingThread);
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> acknowledged.size() > 500);
            group.failover();
            int atFailover = acknowledged.size();
            await().atMost(Duration.ofSeconds(30)).until(() -> acknowledged.size() > atFailover + 500);
            publishing.set(false);
            for (Thread thread : threads) {
                thread.join();
            }
            Set<String> stored = storedIds(group, app.getEnvironment().getProperty("delay.key-prefix"));
            List<String> lost = acknowledged.stream().filter(key -> !stored.contains(key)).toList();
            return new Outcome(acknowledged.size(), refused.get(), lost);
        }
    }

    /** The ids of the jobs on the master now, in one read (a find per job takes minutes for 100,000). */
    private static Set<String> storedIds(RedisSentinelGroup group, String prefix) {
        Config config = new Config();
        SentinelServersConfig sentinel = config.useSentinelServers().setMasterName(RedisSentinelGroup.MASTER_NAME)
                .setReadMode(ReadMode.MASTER);
        for (String node : group.sentinelNodes().split(",")) {
            sentinel.addSentinelAddress("redis://" + node);
        }
        RedissonClient redisson = Redisson.create(config);
        try {
            return redisson.<String, String>getMap(prefix + ":{failover}:jobs", StringCodec.INSTANCE).readAllKeySet();
        }
        finally {
            redisson.shutdown();
        }
    }

    record Outcome(int acknowledged, int refused, List<String> lost) {

        @Override
        public String toString() {
            return "acknowledged=" + acknowledged + " refused=" + refused + " lost=" + lost.size();
        }
    }
}
