package dev.delayjobs.autoconfigure;

import org.redisson.client.RedisConnectionException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Redis could not be reached while the application started (Redisson connects when its client is
 * built): one summary with the address and what to check, instead of a page of nested exceptions.
 */
final class RedisUnreachableFailureAnalyzer extends AbstractFailureAnalyzer<RedisConnectionException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, RedisConnectionException cause) {
        // Redisson wraps its own exception a few times; the innermost one names the address
        RedisConnectionException innermost = cause;
        Throwable root = cause;
        for (Throwable t = cause; t != null && t != t.getCause(); t = t.getCause()) {
            if (t instanceof RedisConnectionException connection) {
                innermost = connection;
            }
            root = t;
        }
        String reason = root == innermost ? "" : " (" + root.getClass().getSimpleName() + ": " + root.getMessage() + ")";
        String description = "Redis could not be reached while the application started: " + innermost.getMessage()
                + reason + ".\nThe RedissonClient that the delay starter (and any other Redis user) runs on connects at startup.";
        String action = """
                Check that Redis is running and reachable from this host at that address, then the connection settings:
                  - spring.data.redis.host and spring.data.redis.port (or spring.data.redis.url); spring.data.redis.cluster.nodes \
                for Redis Cluster, spring.data.redis.sentinel.master and .nodes for Sentinel; or spring.redis.redisson.config / .file
                  - spring.data.redis.username and .password when Redis requires a user (ACL) or a password
                  - spring.data.redis.ssl.enabled=true (or a rediss:// URL) when Redis only accepts TLS
                To start the application without delay queues, set delay.enabled=false.""";
        return new FailureAnalysis(description, action, cause);
    }
}
