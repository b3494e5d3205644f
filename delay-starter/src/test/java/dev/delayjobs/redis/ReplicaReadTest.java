package dev.delayjobs.redis;

import static dev.delayjobs.test.ClaimRequests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.delayjobs.test.TestPartitions.whole;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.config.ReadMode;

import dev.delayjobs.store.StoredJob;
import dev.delayjobs.JobState;
import dev.delayjobs.embeddedredis.RedisServerProcess;
import dev.delayjobs.queue.QueueName;

/**
 * The starter reads its own writes with Redisson reading from replicas ({@code readMode SLAVE},
 * its default for Cluster and Sentinel): every script, the reading ones too, runs on the master.
 * The replica is frozen (SIGSTOP) after the client connected, so a read sent to it could only time
 * out: it would never answer, let alone answer stale.
 */
class ReplicaReadTest {

    RedisServerProcess master;
    RedisServerProcess replica;
    RedissonClient redisson;

    @BeforeEach
    void start() {
        master = RedisServerProcess.start();
        replica = RedisServerProcess.start("--replicaof", "127.0.0.1", Integer.toString(master.port()));
        Config config = new Config();
        config.useMasterSlaveServers().setMasterAddress(master.url()).addSlaveAddress(replica.url())
                .setReadMode(ReadMode.SLAVE).setTimeout(1000).setRetryAttempts(0);
        redisson = Redisson.create(config);
    }

    @AfterEach
    void stop() {
        replica.resume();
        redisson.shutdown();
        replica.close();
        master.close();
    }

    @Test
    void findStatsDeadPageAndTheRegistryReadTheMaster() {
        RedisJobStore store = new RedisJobStore(redisson, "rr");
        replica.pause();

        store.registerQueue(QueueName.of("q"));
        store.publish(whole("q"), List.of(new NewJob("a", true, 60_000, false, "1"), new NewJob("b", true, 0, false, "2")));
        StoredJob b = store.partition(whole("q")).claim(request("i1", 1, Duration.ofSeconds(10), 1)).jobs().get(0);
        store.partition(whole("q")).bury("i1", b, "broken");

        assertThat(store.find(whole("q"), "a").orElseThrow().state()).isEqualTo(JobState.DELAYED);
        assertThat(store.stats(whole("q")).delayed()).isEqualTo(1);
        assertThat(store.deadJobs().page(whole("q"), 0, 10).total()).isEqualTo(1);
        assertThat(store.knownQueues()).containsExactly("q");
    }
}
