package dev.delayjobs.topology;

import java.time.Duration;
import java.util.List;

import dev.delayjobs.embeddedredis.RedisCluster;
import dev.delayjobs.embeddedredis.RedisSentinelGroup;

/**
 * The production topologies the starter runs on, each started once per test JVM from the same
 * {@code redis-server} binary as the other tests and stopped when the JVM exits. Applications
 * reach them through Spring Boot's properties, with Redisson's defaults (replica reads included).
 */
public enum Topology {

    /** 3 masters, each with a replica. */
    CLUSTER {
        @Override
        List<String> springProperties() {
            return List.of("spring.data.redis.cluster.nodes=" + Servers.cluster().nodes());
        }
    },

    /** A master with a replica, watched by 3 sentinels. */
    SENTINEL {
        @Override
        List<String> springProperties() {
            return List.of("spring.data.redis.sentinel.master=" + RedisSentinelGroup.MASTER_NAME,
                    "spring.data.redis.sentinel.nodes=" + Servers.sentinel().sentinelNodes());
        }
    };

    /** The {@code spring.data.redis.*} properties that point an application at this topology. */
    abstract List<String> springProperties();

    /** Started on first use. */
    static final class Servers {

        private static RedisCluster cluster;
        private static RedisSentinelGroup sentinel;

        private Servers() {
        }

        static synchronized RedisCluster cluster() {
            if (cluster == null) {
                // a node is failed over only after 30 s unanswered: the tests that freeze a master
                // see the other masters serve on, without a failover in the middle
                cluster = RedisCluster.start(3, 1, Duration.ofSeconds(30));
                Runtime.getRuntime().addShutdownHook(new Thread(cluster::close));
            }
            return cluster;
        }

        static synchronized RedisSentinelGroup sentinel() {
            if (sentinel == null) {
                sentinel = RedisSentinelGroup.start(1, Duration.ofSeconds(5));
                Runtime.getRuntime().addShutdownHook(new Thread(sentinel::close));
            }
            return sentinel;
        }
    }
}
