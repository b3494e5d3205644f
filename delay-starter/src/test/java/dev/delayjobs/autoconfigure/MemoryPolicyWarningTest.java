package dev.delayjobs.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.actuate.DelayQueuesHealthIndicator;
import dev.delayjobs.embeddedredis.RedisServerProcess;
import dev.delayjobs.embeddedredis.RespConnection;
import dev.delayjobs.redis.MemoryPolicies;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/**
 * The delay queues need {@code maxmemory-policy noeviction}: a policy that evicts is named in a
 * WARN line once the application is ready and in the health details; the policy is read where an
 * ACL user may run only INFO or only CONFIG, and reads as unknown, failing nothing, where neither.
 */
@ExtendWith(OutputCaptureExtension.class)
class MemoryPolicyWarningTest {

    @Test
    void anAllKeysPolicyIsNamedInAWarnLineAtStartupAndInTheHealthDetails(CapturedOutput output) {
        try (RedisServerProcess redis = RedisServerProcess.start("--maxmemory-policy", "allkeys-lru");
                ConfigurableApplicationContext app = app(redis)) {
            assertThat(warnLines(output)).singleElement().asString()
                    .contains("Redis at " + redis.address() + " has maxmemory-policy allkeys-lru")
                    .contains("jobs would be deleted silently").contains("need maxmemory-policy noeviction");

            Health health = app.getBean(DelayQueuesHealthIndicator.class).health();
            assertThat(health.getDetails().get("maxmemoryPolicy")).isEqualTo(Map.of(redis.address(), "allkeys-lru"));
            assertThat(health.getDetails().get("maxmemoryPolicyWarning")).asString().contains("allkeys-lru")
                    .contains("jobs would be deleted silently");
        }
    }

    @Test
    void noevictionLogsNoWarningAndAVolatilePolicySetLaterShowsInTheHealthDetails(CapturedOutput output) {
        try (RedisServerProcess redis = RedisServerProcess.start("--maxmemory-policy", "noeviction");
                ConfigurableApplicationContext app = app(redis)) {
            assertThat(warnLines(output)).isEmpty();
            DelayQueuesHealthIndicator indicator = app.getBean(DelayQueuesHealthIndicator.class);
            Health health = indicator.health();
            assertThat(health.getDetails().get("maxmemoryPolicy")).isEqualTo(Map.of(redis.address(), "noeviction"));
            assertThat(health.getDetails()).doesNotContainKey("maxmemoryPolicyWarning");

            try (RespConnection operator = new RespConnection(redis.host(), redis.port())) {
                operator.call("CONFIG", "SET", "maxmemory-policy", "volatile-lru");
            }
            Health changed = indicator.health();
            assertThat(changed.getDetails().get("maxmemoryPolicy")).isEqualTo(Map.of(redis.address(), "volatile-lru"));
            assertThat(changed.getDetails().get("maxmemoryPolicyWarning")).asString().contains("volatile-lru")
                    .contains("jobs are kept").contains("request memos");
        }
    }

    @Test
    void thePolicyIsReadWhereOnlyInfoOrOnlyConfigIsAllowedAndIsUnknownWhereNeither() {
        try (RedisServerProcess redis = RedisServerProcess.start("--maxmemory-policy", "allkeys-lfu",
                "--user", "noconfig", "on", ">secret", "~*", "+@all", "-config",
                "--user", "noinfo", "on", ">secret", "~*", "+@all", "-info",
                "--user", "neither", "on", ">secret", "~*", "+@all", "-info", "-config")) {
            assertThat(policiesAs(redis, "noconfig")).isEqualTo(Map.of(redis.address(), "allkeys-lfu"));
            assertThat(policiesAs(redis, "noinfo")).isEqualTo(Map.of(redis.address(), "allkeys-lfu"));
            assertThat(policiesAs(redis, "neither")).isEqualTo(Map.of(redis.address(), MemoryPolicies.UNKNOWN));
        }
    }

    private static Map<String, String> policiesAs(RedisServerProcess redis, String user) {
        Config config = new Config();
        config.useSingleServer().setAddress(redis.url()).setUsername(user).setPassword("secret");
        RedissonClient redisson = Redisson.create(config);
        try {
            return new MemoryPolicies(redisson).read();
        }
        finally {
            redisson.shutdown();
        }
    }

    private static ConfigurableApplicationContext app(RedisServerProcess redis) {
        return TestApps.run("127.0.0.1", redis.port(), TestRedis.uniquePrefix(), List.of(), "delay.health.cache-ttl=0");
    }

    private static List<String> warnLines(CapturedOutput output) {
        return output.getAll().lines().filter(line -> line.contains(" WARN ") && line.contains("maxmemory-policy")).toList();
    }
}
