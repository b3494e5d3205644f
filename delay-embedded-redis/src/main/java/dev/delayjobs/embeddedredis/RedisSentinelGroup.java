package dev.delayjobs.embeddedredis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A master, its replicas and three sentinels watching it, real {@code redis-server} processes on
 * loopback; returned once every sentinel knows the master, its replicas and the other sentinels.
 */
public final class RedisSentinelGroup implements AutoCloseable {

    /** The name the sentinels know the master by: {@code spring.data.redis.sentinel.master}. */
    public static final String MASTER_NAME = "delaymaster";

    private final RedisServerProcess master;
    private final List<RedisServerProcess> replicas = new ArrayList<>();
    private final List<RedisServerProcess> sentinels = new ArrayList<>();

    private RedisSentinelGroup(RedisServerProcess master) {
        this.master = master;
    }

    /**
     * Starts a master, {@code replicaCount} replicas of it and three sentinels (quorum 2) watching
     * it, each with a temporary data directory.
     *
     * @param replicaCount how many replicas; a failover needs at least 1
     * @param downAfter how long the master may not answer before the sentinels fail it over
     *     ({@code down-after-milliseconds})
     * @return the group, once every replica is in sync and every sentinel knows the master, its
     *     replicas and the other two sentinels
     * @throws IllegalStateException when a server cannot be started, or the group is not ready
     *     within 30 seconds; the servers started so far are stopped first
     */
    public static RedisSentinelGroup start(int replicaCount, Duration downAfter) {
        RedisSentinelGroup group = new RedisSentinelGroup(RedisServerProcess.builder().start());
        try {
            for (int i = 0; i < replicaCount; i++) {
                group.replicas.add(RedisServerProcess.builder()
                        .args("--replicaof", group.master.host(), Integer.toString(group.master.port())).start());
            }
            for (RedisServerProcess replica : group.replicas) {
                RedisCluster.await("replica " + replica.address() + " in sync", () -> info(replica, "INFO", "replication")
                        .contains("master_link_status:up"));
            }
            String config = "sentinel monitor " + MASTER_NAME + " " + group.master.host() + " " + group.master.port() + " 2\n"
                    + "sentinel down-after-milliseconds " + MASTER_NAME + " " + downAfter.toMillis() + "\n"
                    + "sentinel failover-timeout " + MASTER_NAME + " 10000\n"
                    + "sentinel parallel-syncs " + MASTER_NAME + " 1\n";
            for (int i = 0; i < 3; i++) {
                group.sentinels.add(RedisServerProcess.builder().config(config).args("--sentinel").start());
            }
            for (RedisServerProcess sentinel : group.sentinels) {
                RedisCluster.await("sentinel " + sentinel.address() + " to see the group", () -> {
                    String state = info(sentinel, "SENTINEL", "MASTER", MASTER_NAME);
                    return state.contains("num-slaves, " + replicaCount) && state.contains("num-other-sentinels, 2");
                });
            }
            return group;
        }
        catch (RuntimeException ex) {
            group.close();
            throw ex;
        }
    }

    /**
     * The master the group started with (after a failover, one of the replicas is master).
     *
     * @return the server started as master; {@link #currentMasterPort()} tells which one is master now
     */
    public RedisServerProcess initialMaster() {
        return master;
    }

    /**
     * The servers started as replicas of {@link #initialMaster()}.
     *
     * @return the replicas, a copy
     */
    public List<RedisServerProcess> replicas() {
        return List.copyOf(replicas);
    }

    /**
     * {@code host:port,...} of the sentinels: {@code spring.data.redis.sentinel.nodes}.
     *
     * @return the addresses of the three sentinels, comma-separated
     */
    public String sentinelNodes() {
        return sentinels.stream().map(RedisServerProcess::address).collect(Collectors.joining(","));
    }

    /**
     * The port of the master as the sentinels see it now.
     *
     * @return the master's port as named by the first sentinel that answers
     * @throws IllegalStateException when no sentinel answers
     */
    @SuppressWarnings("unchecked")
    public int currentMasterPort() {
        for (RedisServerProcess sentinel : sentinels) {
            try (RespConnection c = new RespConnection(sentinel.host(), sentinel.port())) {
                List<Object> address = (List<Object>) c.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
                return Integer.parseInt((String) address.get(1));
            }
            catch (RuntimeException unreachable) {
                // ask the next
            }
        }
        throw new IllegalStateException("no sentinel answers");
    }

    /**
     * Forces a failover ({@code SENTINEL FAILOVER}): a replica becomes master, the old master its
     * replica. Returns once the sentinels name the new master and the old one replicates from it.
     *
     * @throws IllegalStateException when the sentinels refuse (no replica to promote, or a failover
     *     already in progress, as an error reply), or a step of the failover takes more than 30
     *     seconds
     */
    public void failover() {
        int before = currentMasterPort();
        try (RespConnection c = new RespConnection(sentinels.get(0).host(), sentinels.get(0).port())) {
            c.call("SENTINEL", "FAILOVER", MASTER_NAME);
        }
        RedisCluster.await("the sentinels to name a new master", () -> currentMasterPort() != before);
        List<RedisServerProcess> nodes = new ArrayList<>(replicas);
        nodes.add(master);
        RedisServerProcess old = nodes.stream().filter(n -> n.port() == before).findFirst().orElseThrow();
        RedisCluster.await("the old master " + old.address() + " to replicate from the new one",
                () -> info(old, "INFO", "replication").contains("master_link_status:up"));
    }

    private static String info(RedisServerProcess node, String... command) {
        try (RespConnection c = new RespConnection(node.host(), node.port())) {
            return String.valueOf(c.call(command));
        }
        catch (RuntimeException notYet) {
            return "";
        }
    }

    @Override
    public void close() {
        sentinels.forEach(RedisServerProcess::close);
        replicas.forEach(RedisServerProcess::close);
        master.close();
    }
}
