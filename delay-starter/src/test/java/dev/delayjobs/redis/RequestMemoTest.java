package dev.delayjobs.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static dev.delayjobs.test.TestPartitions.whole;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.BaseConfig;
import org.redisson.config.Config;
import org.redisson.config.ConstantDelay;
import org.redisson.config.EqualJitterDelay;
import org.redisson.config.FullJitterDelay;

import dev.delayjobs.test.TestRedis;

/**
 * The lifetime of request memos follows the client's timeout and retry settings: every copy
 * Redisson may resend of a publish, claim or cancel finds the memo of the first, and settings no
 * memo allowed can cover are refused.
 */
class RequestMemoTest {

    @Test
    void redissonsDefaultsResendWithin28Seconds() {
        RequestMemo memo = RequestMemo.of(new Config().useSingleServer());
        // 4 attempts of 3 s, equal jitter from 1 s to 2 s: (1+3+1) + 3 x (2+3+2) + 2
        assertThat(memo.resendWindowMs(0)).isEqualTo(28_000);
        assertThat(memo.lifetimeMs(0)).isEqualTo(38_000);
        assertThat(RequestMemo.DEFAULT_LIFETIME_MS).isEqualTo(38_000);
        // a publish that waits up to 1 s for replicas: each attempt waits that too
        assertThat(memo.resendWindowMs(1_000)).isEqualTo(32_000);
    }

    @Test
    void theLongestDelayOfEachAttemptBoundsWhatRedissonsStrategiesReturn() {
        EqualJitterDelay equal = new EqualJitterDelay(Duration.ofMillis(300), Duration.ofSeconds(5));
        FullJitterDelay full = new FullJitterDelay(Duration.ofMillis(300), Duration.ofSeconds(5));
        RequestMemo equalMemo = RequestMemo.of(1_000, 6, equal);
        RequestMemo fullMemo = RequestMemo.of(1_000, 6, full);
        assertThat(List.of(0, 1, 2, 3, 4, 5, 6).stream().map(equalMemo::longestDelayMs))
                .containsExactly(300L, 600L, 1_200L, 2_400L, 4_800L, 5_000L, 5_000L);
        for (int attempt = 0; attempt <= 6; attempt++) {
            for (int i = 0; i < 2_000; i++) {
                assertThat(equal.calcDelay(attempt).toMillis()).isLessThanOrEqualTo(equalMemo.longestDelayMs(attempt));
                assertThat(full.calcDelay(attempt).toMillis()).isLessThanOrEqualTo(fullMemo.longestDelayMs(attempt));
            }
        }
    }

    @Test
    void aConstantDelayAndNoRetries() {
        // the deprecated retryInterval setting is a ConstantDelay: (1.5+3+1.5) x 3 + 1.5
        assertThat(RequestMemo.of(new Config().useSingleServer().setRetryAttempts(3).setRetryInterval(1_500))
                .resendWindowMs(0)).isEqualTo(19_500);
        RequestMemo once = RequestMemo.of(3_000, 0, new ConstantDelay(Duration.ofSeconds(1)));
        assertThat(once.resendWindowMs(0)).as("no retry, no copy").isZero();
        assertThat(once.lifetimeMs(0)).isEqualTo(RequestMemo.STALL_MARGIN.toMillis());
    }

    @Test
    void settingsThatResendForTooLongAreRefusedNamingThem() {
        RequestMemo slow = RequestMemo.of(60_000, 10, new ConstantDelay(Duration.ofSeconds(1)));
        assertThatThrownBy(() -> slow.lifetimeMs(0)).isInstanceOf(RequestMemo.SettingsNotCovered.class)
                .hasMessageContaining("timeout 60000 ms, retryAttempts 10, retryDelay ConstantDelay")
                .hasMessageContaining("621000 ms after the first").hasMessageContaining("300 s");
        assertThatThrownBy(() -> RequestMemo.of(3_000, 4, attempt -> Duration.ofSeconds(attempt)))
                .isInstanceOf(RequestMemo.SettingsNotCovered.class).hasMessageContaining("has no known longest delay");
    }

    /** Memos written through a client live the window its settings allow, on a real Redis. */
    @Test
    void memosWrittenUnderAClientsSettingsLiveItsWholeWindow() {
        Config config = new Config();
        BaseConfig<?> server = config.useSingleServer().setAddress("redis://" + TestRedis.address()).setTimeout(5_000)
                .setRetryAttempts(6).setRetryDelay(new ConstantDelay(Duration.ofSeconds(2)));
        long window = RequestMemo.of(server).resendWindowMs(0);
        assertThat(window).isEqualTo(6 * (2_000 + 5_000 + 2_000) + 2_000);
        RedissonClient patient = Redisson.create(config);
        try {
            String prefix = TestRedis.uniquePrefix();
            RedisJobStore store = new RedisJobStore(patient, prefix);
            assertThat(store.requestMemoLifetime(ReplicaConfirmation.NONE)).isEqualTo(Duration.ofMillis(window + 10_000));
            store.publish(whole("q"), List.of(new NewJob("a", true, 0, false, "1")));
            assertThat(memoTtls(patient, prefix)).singleElement().satisfies(ttl -> assertThat(ttl).isGreaterThan(window));
            store.cancel(whole("q"), "a");
            // the cancel's memo is in the publish's bucket or one of its own
            assertThat(memoTtls(patient, prefix)).hasSizeBetween(1, 2).allSatisfy(ttl -> assertThat(ttl).isGreaterThan(window - 1_000));
            assertThat(patient.getKeys().getKeysStreamByPattern(prefix + "*req:*").mapToInt(key -> patient.getMap(key).size()).sum())
                    .as("two memos").isEqualTo(2);
        }
        finally {
            patient.shutdown();
        }
    }

    private static List<Long> memoTtls(RedissonClient redisson, String prefix) {
        return redisson.getKeys().getKeysStreamByPattern(prefix + "*req:*").map(key -> redisson.getBucket(key).remainTimeToLive())
                .toList();
    }
}
