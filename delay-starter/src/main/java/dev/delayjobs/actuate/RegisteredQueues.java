package dev.delayjobs.actuate;

import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.delayjobs.partition.PartitionedQueues;
import dev.delayjobs.queue.QueueName;

/**
 * The queue names of the registry that the endpoint, health and metrics show: only valid queue
 * names. The registry is a Redis set anyone with write access can add to; a name no publisher
 * could have written is skipped (logged once) rather than shown, or made a metric tag.
 */
final class RegisteredQueues {

    private static final Log logger = LogFactory.getLog(RegisteredQueues.class);
    private static final Set<String> reported = ConcurrentHashMap.newKeySet();

    private RegisteredQueues() {
    }

    /** The valid queue names of the registry, sorted. */
    static Set<QueueName> of(PartitionedQueues store) {
        Set<QueueName> names = new TreeSet<>();
        for (String name : store.knownQueues()) {
            try {
                names.add(QueueName.of(name));
            }
            catch (IllegalArgumentException notAQueueName) {
                if (reported.size() < 100 && reported.add(name)) {
                    logger.warn("Skipping an entry of the queue registry that is not a valid queue name ("
                            + name.length() + " characters)");
                }
            }
        }
        return names;
    }
}
