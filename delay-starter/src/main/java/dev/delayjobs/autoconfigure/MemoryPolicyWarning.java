package dev.delayjobs.autoconfigure;

import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;

import dev.delayjobs.redis.MemoryPolicies;

/**
 * Once the application is ready (no Redis call while the context starts), reads each Redis
 * master's {@code maxmemory-policy} and logs a WARN for one that evicts: the delay queues need
 * {@code noeviction}.
 */
final class MemoryPolicyWarning implements ApplicationListener<ApplicationReadyEvent> {

    private static final Log logger = LogFactory.getLog(MemoryPolicyWarning.class);

    private final MemoryPolicies policies;

    MemoryPolicyWarning(MemoryPolicies policies) {
        this.policies = policies;
    }

    @Override
    public void onApplicationEvent(ApplicationReadyEvent event) {
        Map<String, String> read;
        try {
            read = policies.read();
        }
        catch (RuntimeException ex) {
            logger.info("Could not read the maxmemory-policy of Redis (the delay queues need noeviction): " + ex.getMessage());
            return;
        }
        read.forEach((address, policy) -> {
            String risk = MemoryPolicies.risk(policy);
            if (risk != null) {
                logger.warn("Redis at " + address + " has maxmemory-policy " + policy + ": when it reaches maxmemory, "
                        + risk + ". The delay queues need maxmemory-policy noeviction: a full Redis then refuses "
                        + "publishes (DelayQueueException: Redis is out of memory) and the queues keep draining.");
            }
            else if (MemoryPolicies.UNKNOWN.equals(policy)) {
                logger.info("Could not read the maxmemory-policy of Redis at " + address + " (INFO memory and CONFIG GET "
                        + "both refused); the delay queues need noeviction");
            }
        });
    }
}
