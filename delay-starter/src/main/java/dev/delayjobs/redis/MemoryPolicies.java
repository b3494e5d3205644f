package dev.delayjobs.redis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNode;
import org.redisson.api.redisnode.RedisNode.InfoSection;
import org.redisson.api.redisnode.RedisNodes;
import org.redisson.config.Config;

/**
 * The {@code maxmemory-policy} of each Redis master the queues live on, and what it would do to
 * them once Redis reaches {@code maxmemory}. Only {@code noeviction} keeps every job: Redis then
 * refuses the writes that add data (a publish fails with an out-of-memory
 * {@link dev.delayjobs.DelayQueueException}) and the queues drain.
 */
public final class MemoryPolicies {

    /** What a master's policy reads as when neither {@code INFO memory} nor {@code CONFIG GET} may be run. */
    public static final String UNKNOWN = "unknown";

    private final RedissonClient redisson;

    public MemoryPolicies(RedissonClient redisson) {
        this.redisson = redisson;
    }

    /**
     * Each master's policy by address ({@code host:port}): from {@code INFO memory}, else
     * {@code CONFIG GET} (managed Redis and ACL users often may run only one of them), else
     * {@link #UNKNOWN}.
     * @throws dev.delayjobs.DelayQueueException when Redis cannot be reached
     */
    public Map<String, String> read() {
        Map<String, String> policies = new LinkedHashMap<>();
        RedisCalls.call("read the maxmemory-policy", null, () -> {
            for (RedisNode master : masters()) {
                policies.put(master.getAddr().getHostString() + ":" + master.getAddr().getPort(), policyOf(master));
            }
            return policies;
        });
        return policies;
    }

    private List<RedisNode> masters() {
        Config config = redisson.getConfig();
        List<RedisNode> masters = new ArrayList<>();
        if (config.isClusterConfig()) {
            masters.addAll(redisson.getRedisNodes(RedisNodes.CLUSTER).getMasters());
        }
        else if (config.isSentinelConfig()) {
            masters.add(redisson.getRedisNodes(RedisNodes.SENTINEL_MASTER_SLAVE).getMaster());
        }
        else {
            masters.add(redisson.getRedisNodes(RedisNodes.SINGLE).getInstance());
        }
        return masters;
    }

    private static String policyOf(RedisNode master) {
        String policy = null;
        try {
            policy = master.info(InfoSection.MEMORY).get("maxmemory_policy");
        }
        catch (RuntimeException refused) {
            // INFO not allowed to this user: CONFIG GET may be
        }
        if (policy == null) {
            try {
                policy = master.getConfig("maxmemory-policy").get("maxmemory-policy");
            }
            catch (RuntimeException refused) {
                // neither: the policy stays unknown
            }
        }
        return policy == null ? UNKNOWN : policy;
    }

    /**
     * What {@code policy} does to the queues once Redis reaches {@code maxmemory}; null for
     * {@code noeviction}, which keeps every key, and for {@link #UNKNOWN}.
     */
    public static @Nullable String risk(String policy) {
        if (policy.startsWith("allkeys-")) {
            return "it evicts any key, job records and queue lists included: jobs would be deleted silently";
        }
        if (policy.startsWith("volatile-")) {
            // job keys never carry a TTL; the request memo buckets and rate logs (PEXPIRE) do
            return "it evicts keys that carry a TTL. No job key has one, so jobs are kept, but the request memos and "
                    + "rate-limit logs do: a publish or claim that Redisson resends after a timeout may then run twice "
                    + "(a job published without a key stored twice), and a rate limit may let more jobs start";
        }
        return null;
    }
}
