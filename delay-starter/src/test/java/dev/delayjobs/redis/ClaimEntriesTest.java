package dev.delayjobs.redis;

import static dev.delayjobs.test.ClaimRequests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.delayjobs.test.TestPartitions.whole;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import dev.delayjobs.store.Recovery;
import dev.delayjobs.store.StoredJob;
import dev.delayjobs.store.Claim;
import dev.delayjobs.JobState;
import dev.delayjobs.store.ClaimRequest;
import dev.delayjobs.embeddedredis.RedisServerProcess;
import dev.delayjobs.embeddedredis.RespConnection;
import dev.delayjobs.test.TestRedis;
import dev.delayjobs.queue.QueueName;

/**
 * The claim state lives in the claims hash, apart from the job records: holding, starting, counting
 * and recovering jobs cost the same whatever their payloads, and no claim entry outlives its job.
 * Reads of the jobs hash are counted by the key's LFU counter on a Redis of this class's own, where
 * every access adds exactly one ({@code lfu-log-factor 0}, no decay).
 */
class ClaimEntriesTest {

    static RedisServerProcess server;
    static RedissonClient redisson;
    RedisJobStore store;
    QueueKeys keys;

    @BeforeAll
    static void start() {
        server = RedisServerProcess.start("--maxmemory-policy", "allkeys-lfu", "--lfu-log-factor", "0", "--lfu-decay-time", "0");
        Config config = new Config();
        config.useSingleServer().setAddress(server.url());
        redisson = Redisson.create(config);
    }

    @AfterAll
    static void stop() {
        redisson.shutdown();
        server.close();
    }

    @BeforeEach
    void newPrefix() {
        String prefix = TestRedis.uniquePrefix();
        store = new RedisJobStore(redisson, prefix);
        keys = new QueueKeys(prefix, "q");
    }

    @Test
    void countingAndRecoveringHeldJobsNeverReadTheirRecords() {
        // held jobs of 64 KB, RUNNING and PREFETCHED (few enough that the counter, one per HSETNX of
        // the publish, stays below its ceiling)
        String payload = "\"" + "x".repeat(64 * 1024) + "\"";
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < 150; i++) {
            jobs.add(new NewJob("j" + i, true, 0, false, payload));
        }
        store.publish(whole("q"), jobs);
        assertThat(store.partition(whole("q")).claim(new ClaimRequest("i1", 150, 100, Duration.ofSeconds(30), 1, null, 0, 1)).jobs()).hasSize(150);
        Map<String, String> records = records();
        long reads = jobsHashAccesses();
        assertThat(reads).as("below the counter's ceiling").isLessThan(250);

        QueueStats stats = store.stats(whole("q"));
        assertThat(stats.running()).isEqualTo(100);
        assertThat(stats.ready()).as("the prefetched ones").isEqualTo(50);
        assertThat(stats.oldestWaitingDueAt()).as("read from the claim entries").isPositive();
        assertThat(jobsHashAccesses()).as("queue-stats never touched the jobs hash").isEqualTo(reads);
        leaseRanOut("i1", 1_000);
        Recovery recovery = store.leases().recoverExpired(QueueName.of("q").whole(), 5);
        assertThat(recovery.requeued()).isEqualTo(150);

        assertThat(jobsHashAccesses()).as("recover never touched the jobs hash").isEqualTo(reads);
        assertThat(records()).as("and no record was rewritten by the claim or the recovery").isEqualTo(records);
        assertThat(store.find(whole("q"), "j0").orElseThrow().attempts()).isEqualTo(1);
        assertThat(store.find(whole("q"), "j0").orElseThrow().state()).isEqualTo(JobState.READY);
    }

    @Test
    void claimingAndStartingLeaveTheRecordsAsPublished() {
        store.publish(whole("q"), List.of(new NewJob("a", true, 0, false, "1"), new NewJob("b", true, 0, false, "2")));
        Map<String, String> published = records();

        Claim claim = store.partition(whole("q")).claim(new ClaimRequest("i1", 2, 1, Duration.ofSeconds(30), 1, null, 0, 1));
        assertThat(store.partition(whole("q")).markStarted(claim.jobs().get(1))).isTrue();
        assertThat(store.partition(whole("q")).bury("i1", claim.jobs().get(0), "no")).isTrue();

        assertThat(records()).isEqualTo(published);
        assertThat(store.find(whole("q"), "b").orElseThrow().state()).isEqualTo(JobState.RUNNING);
        assertThat(store.find(whole("q"), "b").orElseThrow().attempts()).isEqualTo(1);
        assertThat(store.deadJobs().page(whole("q"), 0, 10).jobs().get(0).attempts()).as("read from the claim entry").isEqualTo(1);
    }

    @Test
    void expiredInstancesAreRecoveredInBoundedCallsAndKeepTheHeldOrder() {
        store.publish(whole("q"), List.of(job("a1"), job("a2"), job("a3"), job("a4"), job("b1"), job("b2"), job("b3")));
        assertThat(store.partition(whole("q")).claim(request("a", 4, Duration.ofSeconds(30), 1)).jobs()).hasSize(4);
        assertThat(store.partition(whole("q")).claim(new ClaimRequest("b", 3, 0, Duration.ofSeconds(30), 1, null, 0, 1)).jobs()).hasSize(3);
        leaseRanOut("a", 1_000);
        leaseRanOut("b", 2_000);

        // three held ids per call: a's tail, then a's head and b's tail, then b's head
        Recovery recovery = store.leases().recoverExpired(QueueName.of("q").whole(), 5, 3);

        assertThat(recovery.requeued()).isEqualTo(7);
        assertThat(recovery.instances()).isEqualTo(2);
        assertThat(redisson.getList(keys.ready(), StringCodec.INSTANCE).readAll())
                .as("as one unbounded call leaves them: the instance recovered last in front, each in its held order")
                .containsExactly("b1", "b2", "b3", "a1", "a2", "a3", "a4");
        assertThat(store.stats(whole("q")).instances()).isEmpty();
        assertThat(claims()).as("b's unstarted jobs are suspect now; a's count their attempt")
                .containsOnlyKeys("a1", "a2", "a3", "a4", "b1", "b2", "b3");
    }

    @Test
    void noClaimEntryOutlivesItsJob() {
        store.publish(whole("q"), List.of(job("acked"), job("cancelled"), job("requeued"), job("deleted"), job("trimmed"),
                job("replaced")));
        List<StoredJob> held = store.partition(whole("q")).claim(request("i1", 6, Duration.ofSeconds(30), 1)).jobs();
        assertThat(held).hasSize(6);
        assertThat(store.partition(whole("q")).ack("i1", List.of(held.get(0)))).isEqualTo(1);
        assertThat(store.partition(whole("q")).retry("i1", held.get(1), "again", Duration.ofMinutes(5))).isTrue();
        assertThat(store.cancel(whole("q"), "cancelled")).isTrue();
        for (int i = 2; i < 5; i++) {
            assertThat(store.partition(whole("q")).bury("i1", held.get(i), "dead")).isTrue();
        }
        assertThat(store.deadJobs().requeue(whole("q"), List.of("requeued"))).isEqualTo(1);
        assertThat(store.deadJobs().delete(whole("q"), List.of("deleted"))).isEqualTo(1);
        assertThat(store.deadJobs().trim(whole("q"), Duration.ZERO, 10)).isEqualTo(1);
        assertThat(store.partition(whole("q")).retry("i1", held.get(5), "again", Duration.ofMinutes(5))).isTrue();
        assertThat(claims()).as("a retried job keeps its attempt").containsOnlyKeys("replaced");
        assertThat(store.publish(whole("q"), List.of(new NewJob("replaced", true, 0, true, "new")))).containsExactly(PublishOutcome.REPLACED);

        assertThat(claims()).as("every job that left, or started afresh, took its entry along").isEmpty();
        assertThat(records()).containsOnlyKeys("requeued", "replaced");
        assertThat(store.partition(whole("q")).claim(request("i1", 2, Duration.ofSeconds(30), 1)).jobs()).extracting(StoredJob::attempts)
                .containsExactly(1, 1);
    }

    private static NewJob job(String id) {
        return new NewJob(id, true, 0, false, "\"" + id + "\"");
    }

    /** As if the instance had stopped long ago: its lease deadline in the past. */
    private void leaseRanOut(String instance, long deadline) {
        redisson.getScoredSortedSet(keys.instances(), StringCodec.INSTANCE).add(deadline, instance);
    }

    private Map<String, String> records() {
        return redisson.<String, String>getMap(keys.jobs(), StringCodec.INSTANCE).readAllMap();
    }

    private Map<String, String> claims() {
        return redisson.<String, String>getMap(keys.claims(), StringCodec.INSTANCE).readAllMap();
    }

    /** The LFU counter of the jobs hash: one more per command that looked the key up (starts at 5, stops at 255). */
    private long jobsHashAccesses() {
        try (RespConnection connection = new RespConnection(RedisServerProcess.HOST, server.port())) {
            return (Long) connection.call("OBJECT", "FREQ", keys.jobs());
        }
    }
}
