package dev.delayjobs.redis;

import static dev.delayjobs.test.TestPartitions.whole;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNode;
import org.redisson.api.redisnode.RedisNodes;
import org.redisson.client.codec.StringCodec;

import dev.delayjobs.partition.QueueLayout;
import dev.delayjobs.queue.Partition;
import dev.delayjobs.queue.QueueName;
import dev.delayjobs.store.ClaimRequest;
import dev.delayjobs.store.StoredJob;
import dev.delayjobs.test.TestRedis;

/**
 * An idle consumer waits on the default group's ready list ({@code awaitReady}); a grouped job made
 * ready, or a parked group put back in turn, pushes the wake marker onto that list when it is empty
 * (see _groups.lua), so the wait ends at once instead of at its timeout. The marker is no job: no
 * count shows it, a claim drops it, at most one is ever there, and none is left once the queue drains.
 */
class GroupedWakeTest {

    /** Longer than any wake takes, shorter than a test should last: the wait must end by content, not by this. */
    static final Duration WAIT = Duration.ofSeconds(3);
    static final RedissonClient redisson = TestRedis.sharedClient();
    String prefix;
    RedisJobStore store;
    QueueKeys k;

    @BeforeEach
    void newPrefix() {
        prefix = TestRedis.uniquePrefix();
        store = new RedisJobStore(redisson, prefix);
        k = new QueueKeys(prefix, "q");
    }

    @Test
    void aWaitingConsumerWakesWhenAGroupedJobIsPublishedDueNow() throws Exception {
        CompletableFuture<Boolean> waiting = waitForReady();
        publish("a", "a-0", 0);
        assertThat(waiting.get(WAIT.toSeconds() + 5, TimeUnit.SECONDS)).as("the wait ended because ready holds something, not by its timeout")
                .isTrue();
        assertThat(ids(claim("i1", 10, 0))).containsExactly("a-0");
        assertThat(redisson.getKeys().countExists(k.ready())).as("the claim dropped the marker").isZero();
    }

    @Test
    void aWaitingConsumerWakesWhenADueGroupedJobIsTransferred() throws Exception {
        publish("a", "a-0", 60_000);
        CompletableFuture<Boolean> waiting = waitForReady();
        makeDue();
        assertThat(store.transfer(whole("q"), 100).moved()).isEqualTo(1);
        assertThat(waiting.get(WAIT.toSeconds() + 5, TimeUnit.SECONDS)).as("woken by the transfer").isTrue();
        assertThat(ids(claim("i1", 10, 0))).containsExactly("a-0");
    }

    @Test
    void aWaitingConsumerWakesWhenAParkedGroupIsPutBackInTurn() throws Exception {
        publish("a", "a-0", 0);
        publish("a", "a-1", 0);
        List<StoredJob> held = claim("i1", 10, 1);
        assertThat(ids(held)).as("a at its limit of 1: parked").containsExactly("a-0");
        assertThat(redisson.getKeys().countExists(k.ready())).as("nothing in ready, the marker dropped").isZero();

        CompletableFuture<Boolean> waiting = waitForReady();
        assertThat(partition().ack("i1", held)).isEqualTo(1);
        assertThat(waiting.get(WAIT.toSeconds() + 5, TimeUnit.SECONDS)).as("woken by the ack that freed a's slot").isTrue();
        assertThat(ids(claim("i1", 10, 1))).containsExactly("a-1");
    }

    @Test
    void noCountShowsTheMarkerAndAtMostOneIsThere() {
        for (int i = 0; i < 5; i++) {
            publish("a", "a-" + i, 0);
        }
        assertThat(readyList()).as("one marker for five pushes").containsExactly("");
        assertThat(store.stats(whole("q")).ready()).as("a's five jobs, not the marker").isEqualTo(5);

        publish(null, "none-0", 0);
        assertThat(readyList()).containsExactly("", "none-0");
        QueueStats stats = store.stats(whole("q"));
        assertThat(stats.ready()).as("a's five and none-0").isEqualTo(6);
        assertThat(stats.oldestWaitingDueAt()).as("the oldest default job read behind the marker").isPositive();
        PayloadVersionCounts versions = store.payloadVersions(whole("q"));
        assertThat(versions.waiting()).as("waiting in ready and delayed: none-0 (groups' lists are not read)").isEqualTo(1);
        assertThat(versions.read()).as("none-0 read, not the marker").isEqualTo(1);
    }

    @Test
    void aHandBackToTheFrontOfReadyDropsTheMarker() {
        publish(null, "none-0", 0);
        List<StoredJob> held = claim("i1", 10, 0);
        publish("a", "a-0", 0);
        assertThat(readyList()).containsExactly("");
        partition().release("i1", 5);
        assertThat(readyList()).as("the handed-back job wakes by itself; the marker stays only at the head")
                .containsExactly("none-0");
        assertThat(held).hasSize(1);
    }

    @Test
    void noMarkerIsLeftOnceTheQueueDrains() {
        for (int i = 0; i < 30; i++) {
            publish(i % 3 == 0 ? null : "g" + (i % 4), "j-" + i, 0);
        }
        List<String> claimed = new ArrayList<>();
        for (int i = 0; i < 20 && claimed.size() < 30; i++) {
            List<StoredJob> jobs = claim("i1", 4, 2);
            claimed.addAll(ids(jobs));
            partition().ack("i1", jobs);
        }
        assertThat(claimed).hasSize(30).doesNotHaveDuplicates();
        claim("i1", 4, 2);
        assertThat(redisson.getKeys().countExists(k.ready())).as("no marker left in ready").isZero();
        assertThat(store.stats(whole("q")).ready()).isZero();
    }

    @Test
    void eachPartitionIsWokenInItsOwnReadyList() {
        List<Partition> partitions = QueueLayout.of(QueueName.of("q"), 2).all();
        Partition second = partitions.get(1);
        store.publish(second, List.of(new NewJob("a-0", true, 0, false, "1").inGroup("a")));
        for (Partition partition : partitions) {
            QueueKeys keys = new QueueKeys(prefix, partition);
            assertThat(redisson.<String>getList(keys.ready(), StringCodec.INSTANCE).readAll()).as(partition.name())
                    .isEqualTo(partition.equals(second) ? List.of("") : List.of());
        }
        assertThat(store.partition(second).awaitReady(WAIT)).isTrue();
    }

    @Test
    void aMarkerAloneDoesNotHoldBackALayoutChange() {
        publish("a", "a-0", 0);
        assertThat(store.cancel(whole("q"), "a-0")).isTrue();
        assertThat(readyList()).containsExactly("");
        assertThat(new QueueLayoutStore(redisson, prefix).close(QueueName.of("q"), 2, 1, "i1").any())
                .as("nothing waits in the queue: its partition closes for the new layout").isFalse();
    }

    /** A consumer's wait on ready, started and blocked in Redis before this returns (as far as Redis shows). */
    private CompletableFuture<Boolean> waitForReady() {
        long before = blockedClients();
        CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> partition().awaitReady(WAIT));
        await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(5))
                .until(() -> blockedClients() > before || waiting.isDone());
        return waiting;
    }

    private static long blockedClients() {
        return Long.parseLong(redisson.getRedisNodes(RedisNodes.SINGLE).getInstance().info(RedisNode.InfoSection.CLIENTS)
                .get("blocked_clients"));
    }

    private void makeDue() {
        DelayedTime.pass(redisson, k, 60_000_000);
    }

    private List<StoredJob> claim(String instance, int n, int groupLimit) {
        return partition().claim(new ClaimRequest(instance, n, n, Duration.ofSeconds(30), 1, null, 0, 1, groupLimit)).jobs();
    }

    private RedisPartitionStore partition() {
        return store.partition(whole("q"));
    }

    private void publish(String group, String id, long delayMs) {
        store.publish(whole("q"), List.of(new NewJob(id, true, delayMs, false, "1").inGroup(group)));
    }

    private List<String> readyList() {
        return redisson.<String>getList(k.ready(), StringCodec.INSTANCE).readAll();
    }

    private static List<String> ids(List<StoredJob> jobs) {
        return new ArrayList<>(jobs.stream().map(StoredJob::id).toList());
    }
}
