package dev.delayjobs.redis;

import static dev.delayjobs.test.ClaimRequests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.delayjobs.test.TestPartitions.whole;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import dev.delayjobs.JobState;
import dev.delayjobs.embeddedredis.RedisServerProcess;

/**
 * A wake message that cannot be sent never fails the state change it announces: an ACL user
 * without channel permission publishes, retries and reschedules, and the job is stored once.
 */
class AclTest {

    static RedisServerProcess server;
    static RedissonClient noChannels;

    @BeforeAll
    static void start() {
        // a user of its own, with every command and key but no channel: PUBLISH answers NOPERM
        server = RedisServerProcess.start("--user", "jobs", "on", ">secret", "~*", "+@all", "resetchannels");
        noChannels = Redisson.create(config("jobs", "secret"));
    }

    @AfterAll
    static void stop() {
        noChannels.shutdown();
        server.close();
    }

    private static Config config(String user, String password) {
        Config config = new Config();
        config.useSingleServer().setAddress(server.url()).setUsername(user).setPassword(password);
        return config;
    }

    @Test
    void theUserReallyCannotPublish() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> noChannels.getTopic("anything").publish("x"))
                .hasMessageContaining("NOPERM");
    }

    @Test
    void publishAndRescheduleSucceedWhenTheWakeCannotBeSent() {
        RedisJobStore store = new RedisJobStore(noChannels, "acl");
        List<PublishOutcome> outcomes = store.publish(whole("q"), List.of(new NewJob("a", true, 60_000, false, "1")));
        assertThat(outcomes).containsExactly(PublishOutcome.CREATED);
        assertThat(store.reschedule(whole("q"), "a", true, 30_000)).isTrue();

        assertThat(store.find(whole("q"), "a").orElseThrow().state()).isEqualTo(JobState.DELAYED);
        assertThat(store.stats(whole("q")).delayed()).isEqualTo(1);
        assertThat(store.publish(whole("q"), List.of(new NewJob("a", true, 60_000, false, "1"))))
                .as("the first publish stored it once").containsExactly(PublishOutcome.KEPT_EXISTING);
        assertThat(store.transfer(whole("q"), 10).moved()).isZero();
        assertThat(store.partition(whole("q")).claim(request("i1", 1, Duration.ofSeconds(10), 1)).jobs()).isEmpty();
    }
}
