package dev.delayjobs.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.delayjobs.embeddedredis.RedisCluster;
import dev.delayjobs.embeddedredis.RedisServerProcess;
import dev.delayjobs.embeddedredis.RespConnection;
import dev.delayjobs.queue.ClusterSlot;
import dev.delayjobs.test.ServerUnderTest;

/**
 * What the starter asks of the server, checked on the server the run is on rather than assumed: the
 * places where Redis 6.2, Redis 7 and Valkey 8 differ or could (script flags, {@code TIME} before
 * writes, {@code WAIT}, ACL channel rules, a full {@code maxmemory}, {@code CLUSTER} replies,
 * {@code INFO memory}). The build runs this class on each server of its matrix (see
 * {@code docs/operations.md#servers-tested}).
 */
class ServerDifferencesTest {

    static RedisServerProcess server;
    static RespConnection redis;
    static Map<String, String> info;

    @BeforeAll
    static void start() {
        server = RedisServerProcess.builder().start();
        redis = connect(server);
        info = info(redis, "server");
    }

    @AfterAll
    static void stop() {
        if (redis != null) {
            redis.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void theServerIsTheOneTheReportNamesAndNoOlderThan62() {
        String version = info.containsKey("valkey_version") ? "Valkey " + info.get("valkey_version")
                : "Redis " + info.get("redis_version");
        assertThat(ServerUnderTest.describe()).startsWith(version + " (");
        // Valkey reports the Redis version it is compatible with as redis_version (7.2.4 for 8.0)
        assertThat(compare(info.get("redis_version"), "6.2.0")).as("redis_version %s", info.get("redis_version"))
                .isGreaterThanOrEqualTo(0);
    }

    @Test
    void everyScriptOfTheStarterCompilesAndNoneDeclaresFlags() {
        List<String> scripts = scripts();
        assertThat(scripts).contains("claim.lua", "publish.lua", "ack.lua");
        for (String name : scripts) {
            String source = LuaScript.load(Script.valueOf(name.substring(0, name.length() - ".lua".length())
                    .toUpperCase(Locale.ROOT).replace('-', '_'))).source();
            // a '#!lua' first line would declare flags (Redis 7+), which Redis 6.2 reads as a syntax error
            assertThat(source).as(name).doesNotStartWith("#!");
            assertThat((String) redis.call("SCRIPT", "LOAD", source)).as(name).hasSize(40);
        }
        // and the commands the scripts and the claimer use beyond the oldest ones (6.2+)
        redis.call("RPUSH", "cmds:list", "a", "b", "c");
        assertThat(redis.call("LPOP", "cmds:list", "2")).isEqualTo(List.of("a", "b"));
        redis.call("ZADD", "cmds:zset", "1", "a");
        assertThat(redis.call("ZMSCORE", "cmds:zset", "a", "b")).isEqualTo(Arrays.asList("1", null));
        assertThat(redis.call("BLMOVE", "cmds:list", "cmds:list", "LEFT", "LEFT", "0.1")).isEqualTo("c");
    }

    @Test
    void aScriptErrorReplyAndAMissingScriptReachTheClientByTheirCodes() {
        // RedisJobStore reads publish.lua's refusal by 'LAYOUT <n>', LuaScript a flushed cache by NOSCRIPT
        assertThatThrownBy(() -> redis.call("EVAL", "return redis.error_reply('LAYOUT 3')", "0"))
                .hasMessageStartingWith("LAYOUT 3");
        assertThatThrownBy(() -> redis.call("EVALSHA", "0".repeat(40), "0")).hasMessageStartingWith("NOSCRIPT");
    }

    @Test
    void timeBeforeWritesReplicatesTheEffectsAndWaitCountsTheReplica() {
        // every script reads TIME and then writes: allowed only with effects replication (the
        // default from Redis 5, the only mode from 7), which also gives the replica the same value
        try (RedisServerProcess master = RedisServerProcess.builder().start();
                RedisServerProcess replica = RedisServerProcess.builder()
                        .args("--replicaof", RedisServerProcess.HOST, Integer.toString(master.port())).start();
                RespConnection m = connect(master);
                RespConnection r = connect(replica)) {
            await("the replica in sync", () -> info(r, "replication").get("master_link_status").equals("up"));
            String written = (String) m.call("EVAL", "local t = redis.call('TIME') "
                    + "redis.call('SET', KEYS[1], t[1] .. '.' .. t[2]) return t[1] .. '.' .. t[2]", "1", "timed");
            // confirm-replicas: the script and WAIT on one connection
            assertThat(m.call("WAIT", "1", "5000")).isEqualTo(1L);
            assertThat(r.call("GET", "timed")).isEqualTo(written);
        }
        // with no replica WAIT answers 0 when its timeout ends, which the publisher reports as unconfirmed
        redis.call("SET", "alone", "1");
        assertThat(redis.call("WAIT", "1", "50")).isEqualTo(0L);
    }

    @Test
    void aFullServerRefusesAScriptsFirstWriteButLetsAStartedScriptFinish() {
        try (RedisServerProcess full = RedisServerProcess.builder().args("--maxmemory-policy", "noeviction").start();
                RespConnection c = connect(full)) {
            c.call("RPUSH", "ready", "job-1", "job-2");
            c.call("CONFIG", "SET", "maxmemory", "1");
            // publish.lua's first write grows memory: refused with OOM before anything is written
            assertThatThrownBy(() -> c.call("EVAL", "redis.call('HSET', KEYS[1], 'a', '1') return 1", "1", "jobs"))
                    .hasMessageContaining("OOM");
            assertThat(c.call("EXISTS", "jobs")).isEqualTo(0L);
            // claim.lua pops first: once a script has written, its later writes run, so no popped
            // id is dropped between LPOP and the active list
            Object moved = c.call("EVAL", "local id = redis.call('LPOP', KEYS[1]) "
                    + "redis.call('RPUSH', KEYS[2], id) return id", "2", "ready", "active");
            assertThat(moved).isEqualTo("job-1");
            assertThat(c.call("LRANGE", "active", "0", "-1")).isEqualTo(List.of("job-1"));
            // a write that changes nothing counts as the first one too: an HDEL of no field first lets
            // a script that must run on a full server (a claim, a heartbeat) add what it needs
            assertThat(c.call("EVAL", "redis.call('HDEL', KEYS[1], '') "
                    + "return redis.call('RPUSH', KEYS[2], 'x')", "2", "jobs", "heartbeats")).isEqualTo(1L);
            // ack.lua only removes: no write of it grows memory, so it runs on a full server
            assertThat(c.call("EVAL", "return redis.call('LREM', KEYS[1], 0, 'job-1')", "1", "active")).isEqualTo(1L);
            Map<String, String> memory = info(c, "memory");
            assertThat(memory).containsKeys("used_memory", "maxmemory", "maxmemory_policy");
            assertThat(Long.parseLong(memory.get("used_memory"))).isGreaterThan(Long.parseLong(memory.get("maxmemory")));
            assertThat(memory.get("maxmemory_policy")).isEqualTo("noeviction");
            // where INFO is not allowed the policy is read with CONFIG GET
            assertThat(c.call("CONFIG", "GET", "maxmemory-policy")).isEqualTo(List.of("maxmemory-policy", "noeviction"));
        }
    }

    @Test
    void aUserWithoutChannelRulesMayPublishOnlyBefore7AndPatternsGrantTheQueueChannels() {
        try (RedisServerProcess acl = RedisServerProcess.builder()
                .args("--user", "plain", "on", ">pw", "~*", "+@all",
                        "--user", "scoped", "on", ">pw", "~*", "+@all", "resetchannels",
                        "&delay:{*}:wake", "&delay:{*}:control-changed")
                .start();
                RespConnection admin = connect(acl);
                RespConnection plain = connect(acl);
                RespConnection scoped = connect(acl)) {
            boolean from7 = compare(info.get("redis_version"), "7.0.0") >= 0;
            // the default of a user's channels changed in Redis 7: allchannels before, resetchannels since
            assertThat(admin.call("CONFIG", "GET", "acl-pubsub-default"))
                    .isEqualTo(List.of("acl-pubsub-default", from7 ? "resetchannels" : "allchannels"));
            plain.call("AUTH", "plain", "pw");
            if (from7) {
                assertThatThrownBy(() -> plain.call("PUBLISH", "delay:{q}:wake", "x")).hasMessageContaining("NOPERM");
            }
            else {
                assertThat(plain.call("PUBLISH", "delay:{q}:wake", "x")).isEqualTo(0L);
            }
            scoped.call("AUTH", "scoped", "pw");
            assertThat(scoped.call("PUBLISH", "delay:{q}:wake", "x")).isEqualTo(0L);
            assertThat(scoped.call("PUBLISH", "delay:{q}:control-changed", "x")).isEqualTo(0L);
            assertThatThrownBy(() -> scoped.call("PUBLISH", "elsewhere", "x")).hasMessageContaining("NOPERM");
            // the scripts publish with pcall: a refused wake leaves the script's writes in place
            assertThat(scoped.call("EVAL", "redis.call('SET', KEYS[1], '1') "
                    + "local r = redis.pcall('PUBLISH', ARGV[1], 'x') return type(r) == 'table' and r.err ~= nil and 1 or 0",
                    "1", "written", "elsewhere")).isEqualTo(1L);
            assertThat(scoped.call("GET", "written")).isEqualTo("1");
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void aClusterAnswersSlotsAndNodesAsTheClientsReadThem() {
        try (RedisCluster cluster = RedisCluster.start(3, 0, Duration.ofSeconds(5));
                RespConnection c = connect(cluster.masters().get(0))) {
            // the slot of a partition's keys, as the starter places partitions on masters
            for (String key : List.of("delay:{q#0}:jobs", "delay:{q#1.2}:ready", "delay:{order-timeout}:delayed", "plain")) {
                assertThat(c.call("CLUSTER", "KEYSLOT", key)).as(key).isEqualTo((long) ClusterSlot.of(key));
            }
            // CLUSTER SLOTS: [first, last, [ip, port, id, ...], ...] covering every slot (read by
            // the test fixture; Redis 7 adds a fourth element, the node's metadata)
            long covered = 0;
            for (Object range : (List<Object>) c.call("CLUSTER", "SLOTS")) {
                List<Object> r = (List<Object>) range;
                List<Object> master = (List<Object>) r.get(2);
                assertThat(master.get(0)).isEqualTo(RedisServerProcess.HOST);
                assertThat(cluster.masters().stream().map(n -> (long) n.port())).contains((Long) master.get(1));
                assertThat((String) master.get(2)).hasSize(40);
                covered += (Long) r.get(1) - (Long) r.get(0) + 1;
            }
            assertThat(covered).isEqualTo(16384);
            // CLUSTER NODES, which Redisson reads: id, ip:port@bus-port[,hostname], flags, ...
            List<String> lines = ((String) c.call("CLUSTER", "NODES")).lines().toList();
            assertThat(lines).hasSize(3).allSatisfy(line -> {
                String[] fields = line.split(" ");
                assertThat(fields.length).isGreaterThanOrEqualTo(9);
                assertThat(fields[1]).matches("127\\.0\\.0\\.1:\\d+@\\d+(,.*)?");
                assertThat(fields[2]).contains("master");
            });
            // CLUSTER SHARDS exists from Redis 7 only; neither the starter nor the fixture use it
            boolean from7 = compare(info.get("redis_version"), "7.0.0") >= 0;
            if (from7) {
                assertThat((List<Object>) c.call("CLUSTER", "SHARDS")).hasSize(3);
            }
            else {
                assertThatThrownBy(() -> c.call("CLUSTER", "SHARDS")).hasMessageContaining("ERR");
            }
        }
    }

    private static RespConnection connect(RedisServerProcess node) {
        return new RespConnection(node.host(), node.port());
    }

    private static Map<String, String> info(RespConnection c, String section) {
        Map<String, String> fields = new HashMap<>();
        for (String line : ((String) c.call("INFO", section)).split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#")) {
                fields.put(line.substring(0, colon), line.substring(colon + 1));
            }
        }
        return fields;
    }

    /** Compares dotted versions number by number. */
    private static int compare(String version, String other) {
        String[] a = version.split("\\.");
        String[] b = other.split("\\.");
        for (int i = 0; i < Math.max(a.length, b.length); i++) {
            int x = i < a.length ? Integer.parseInt(a[i]) : 0;
            int y = i < b.length ? Integer.parseInt(b[i]) : 0;
            if (x != y) {
                return Integer.compare(x, y);
            }
        }
        return 0;
    }

    private static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            try {
                Thread.sleep(20);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what, ex);
            }
        }
    }

    /** The starter's scripts (every .lua of its package but the includes, named _<name>.lua). */
    private static List<String> scripts() {
        try (Stream<Path> files = Files.list(Path.of(LuaScript.class.getResource("_record.lua").toURI()).getParent())) {
            return files.map(file -> file.getFileName().toString())
                    .filter(name -> name.endsWith(".lua") && !name.startsWith("_")).sorted().toList();
        }
        catch (IOException | URISyntaxException ex) {
            throw new IllegalStateException("cannot list the scripts", ex);
        }
    }
}
