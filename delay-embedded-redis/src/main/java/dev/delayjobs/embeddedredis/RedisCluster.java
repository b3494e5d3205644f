package dev.delayjobs.embeddedredis;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/**
 * A Redis Cluster of real {@code redis-server} processes on loopback: masters with the 16384 slots
 * split evenly, each with its replicas, built with CLUSTER MEET / ADDSLOTS / REPLICATE and returned
 * once every node reports {@code cluster_state:ok} and every replica is in sync.
 *
 * <p>Redis 6.2 puts a node's cluster bus on its port + 10000, so ports are drawn from 20000-29999
 * with both free.
 */
public final class RedisCluster implements AutoCloseable {

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);

    private final List<RedisServerProcess> masters = new ArrayList<>();
    private final List<RedisServerProcess> replicas = new ArrayList<>();

    private RedisCluster() {
    }

    /**
     * Starts {@code masters} masters with {@code replicasPerMaster} replicas each, every node a
     * {@code redis-server} with a temporary data directory, and forms the cluster.
     *
     * @param masters how many masters, at least 1; master {@code i} of {@code n} serves slots
     *     {@code 16384 * i / n} up to {@code 16384 * (i + 1) / n - 1}
     * @param replicasPerMaster replicas of each master, 0 for none
     * @param nodeTimeout {@code cluster-node-timeout}: how long a node may not answer before the
     *     others count it failed (and a replica takes over)
     * @return the cluster, once every node reports {@code cluster_state:ok}, every replica is in
     *     sync with its master and every node sees all the others
     * @throws IllegalStateException when a node cannot be started, or the cluster is not formed
     *     within 30 seconds; the nodes started so far are stopped first
     */
    public static RedisCluster start(int masters, int replicasPerMaster, Duration nodeTimeout) {
        RedisCluster cluster = new RedisCluster();
        try {
            for (int i = 0; i < masters * (1 + replicasPerMaster); i++) {
                RedisServerProcess node = RedisServerProcess.builder().port(clusterPort())
                        .args("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                                "--cluster-node-timeout", Long.toString(nodeTimeout.toMillis()))
                        .start();
                (i < masters ? cluster.masters : cluster.replicas).add(node);
            }
            cluster.form(replicasPerMaster);
            return cluster;
        }
        catch (RuntimeException ex) {
            cluster.close();
            throw ex;
        }
    }

    /**
     * The nodes started as masters. After a failover one of them may be a replica: ask
     * {@link #masterOf(String)} which node serves a key now.
     *
     * @return the masters in slot order (the first serves slot 0), a copy
     */
    public List<RedisServerProcess> masters() {
        return List.copyOf(masters);
    }

    /**
     * The nodes started as replicas.
     *
     * @return the replicas of the first master, then those of the second, and so on; a copy
     */
    public List<RedisServerProcess> replicas() {
        return List.copyOf(replicas);
    }

    /**
     * {@code host:port,host:port,...} of every node: {@code spring.data.redis.cluster.nodes}.
     *
     * @return the addresses of the masters, then the replicas, comma-separated
     */
    public String nodes() {
        List<RedisServerProcess> all = new ArrayList<>(masters);
        all.addAll(replicas);
        return all.stream().map(RedisServerProcess::address).collect(Collectors.joining(","));
    }

    /**
     * The master that serves {@code key} now (asked of the cluster, so it follows failovers).
     *
     * @param key a Redis key; only its hash tag counts when it has one ({@code "{q}:ready"} and
     *     {@code "{q}:jobs"} share a slot)
     * @return the node serving the key's slot: one of {@link #masters()}, or of {@link #replicas()}
     *     after a failover
     * @throws IllegalStateException when none of the running masters answers
     */
    @SuppressWarnings("unchecked")
    public RedisServerProcess masterOf(String key) {
        for (RedisServerProcess master : masters) {
            if (!master.isRunning()) {
                continue;
            }
            try (RespConnection c = new RespConnection(master.host(), master.port())) {
                long slot = (Long) c.call("CLUSTER", "KEYSLOT", key);
                for (Object range : (List<Object>) c.call("CLUSTER", "SLOTS")) {
                    List<Object> r = (List<Object>) range;
                    if ((Long) r.get(0) <= slot && slot <= (Long) r.get(1)) {
                        long port = (Long) ((List<Object>) r.get(2)).get(1);
                        return node(port);
                    }
                }
            }
            catch (RuntimeException unreachable) {
                // paused or killed: ask another
            }
        }
        throw new IllegalStateException("no master answers for key " + key);
    }

    private RedisServerProcess node(long port) {
        List<RedisServerProcess> all = new ArrayList<>(masters);
        all.addAll(replicas);
        return all.stream().filter(n -> n.port() == port).findFirst()
                .orElseThrow(() -> new IllegalStateException("no node on port " + port));
    }

    private void form(int replicasPerMaster) {
        RedisServerProcess first = masters.get(0);
        List<RedisServerProcess> all = new ArrayList<>(masters);
        all.addAll(replicas);
        try (RespConnection c = new RespConnection(first.host(), first.port())) {
            for (RedisServerProcess node : all.subList(1, all.size())) {
                c.call("CLUSTER", "MEET", node.host(), Integer.toString(node.port()));
            }
        }
        for (int i = 0; i < masters.size(); i++) {
            List<String> command = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
            for (int slot = 16384 * i / masters.size(); slot < 16384 * (i + 1) / masters.size(); slot++) {
                command.add(Integer.toString(slot));
            }
            RedisServerProcess master = masters.get(i);
            try (RespConnection c = new RespConnection(master.host(), master.port())) {
                c.call(command);
            }
        }
        List<String> masterIds = masters.stream().map(RedisCluster::id).toList();
        for (int i = 0; i < replicas.size(); i++) {
            RedisServerProcess replica = replicas.get(i);
            String masterId = masterIds.get(i / replicasPerMaster);
            await("replica " + replica.address() + " to learn of its master", () -> knows(replica, masterId));
            try (RespConnection c = new RespConnection(replica.host(), replica.port())) {
                c.call("CLUSTER", "REPLICATE", masterId);
            }
        }
        for (RedisServerProcess node : all) {
            await("cluster_state:ok on " + node.address(), () -> info(node, "CLUSTER", "INFO").contains("cluster_state:ok"));
        }
        for (RedisServerProcess replica : replicas) {
            await("replica " + replica.address() + " in sync", () -> info(replica, "INFO", "replication")
                    .contains("master_link_status:up"));
        }
        // every node must see every other as it is now, or a client that asks one of them is misrouted
        for (RedisServerProcess node : all) {
            await("a full view of the cluster on " + node.address(), () -> info(node, "CLUSTER", "NODES").lines()
                    .filter(line -> !line.contains("handshake") && !line.contains("noaddr")).count() == all.size());
        }
    }

    private static boolean knows(RedisServerProcess node, String id) {
        return info(node, "CLUSTER", "NODES").contains(id);
    }

    private static String id(RedisServerProcess node) {
        try (RespConnection c = new RespConnection(node.host(), node.port())) {
            return (String) c.call("CLUSTER", "MYID");
        }
    }

    private static String info(RedisServerProcess node, String... command) {
        try (RespConnection c = new RespConnection(node.host(), node.port())) {
            return String.valueOf(c.call(command));
        }
    }

    static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("gave up waiting for " + what + " after " + READY_TIMEOUT.toSeconds() + " s");
            }
            try {
                Thread.sleep(50);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + what, ex);
            }
        }
    }

    private static int clusterPort() {
        for (int attempt = 0; attempt < 100; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(20000, 30000);
            if (free(port) && free(port + 10000)) {
                return port;
            }
        }
        throw new IllegalStateException("no free port pair (port, port + 10000) in 20000-39999");
    }

    private static boolean free(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName(RedisServerProcess.HOST))) {
            return true;
        }
        catch (IOException ex) {
            return false;
        }
    }

    @Override
    public void close() {
        replicas.forEach(RedisServerProcess::close);
        masters.forEach(RedisServerProcess::close);
    }
}
