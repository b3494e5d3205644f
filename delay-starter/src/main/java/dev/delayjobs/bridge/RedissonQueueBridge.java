package dev.delayjobs.bridge;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.SmartLifecycle;

import dev.delayjobs.core.PayloadCodec;
import dev.delayjobs.listener.ListenerContainer;
import dev.delayjobs.listener.ListenerContainerRegistry;
import dev.delayjobs.redis.RedissonQueueStore;
import dev.delayjobs.threads.WorkerThreads;

/**
 * Runs the compatibility mode: opens the Redisson {@code RDelayedQueue} of every bridged queue, so
 * that Redisson's transfer task runs in this JVM even when no old producer does, and, for each one
 * with a {@code @DelayedHandler} here, an {@link ElementAdopter} that moves what lands in the
 * target list into the native queue. Starts before the listener containers and stops after them.
 */
public final class RedissonQueueBridge implements SmartLifecycle {

    private static final Log logger = LogFactory.getLog(RedissonQueueBridge.class);

    /** Between the watchdog and the containers. */
    public static final int PHASE = ListenerContainerRegistry.PHASE - 50;

    private final BridgedQueues queues;
    private final RedissonQueueStore store;
    private final ListenerContainerRegistry registry;
    private final PayloadCodec payloads;
    private final WorkerThreads threads;
    private final List<ElementAdopter> adopters = new ArrayList<>();
    private volatile boolean running;

    public RedissonQueueBridge(BridgedQueues queues, RedissonQueueStore store, ListenerContainerRegistry registry,
            PayloadCodec payloads, WorkerThreads threads) {
        this.queues = queues;
        this.store = store;
        this.registry = registry;
        this.payloads = payloads;
        this.threads = threads;
    }

    @Override
    public synchronized void start() {
        for (BridgedQueue queue : queues.all()) {
            store.open(queue.target(), queue.format().codec());
            registry.getContainer(queue.queue()).ifPresent(container -> {
                ElementAdopter adopter = new ElementAdopter(queue, store, conversion(queue, container), threads);
                adopter.start();
                adopters.add(adopter);
            });
        }
        logger.info("Queues in compatibility mode, read through Redisson's deprecated RDelayedQueue: "
                + queues.all().stream().map(q -> "'" + q.queue() + "' (list '" + q.target() + "', "
                        + q.format().describe() + ", publishes " + (q.offersPublishes() ? "offered to it" : "native jobs")
                        + ")").collect(Collectors.joining(", "))
                + ". Migrate them to native queues to stop depending on it: see docs/migration.md");
        running = true;
    }

    @Override
    public synchronized void stop() {
        running = false;
        adopters.forEach(ElementAdopter::stop);
        adopters.clear();
        store.closeAll();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    ElementConversion conversion(BridgedQueue queue, ListenerContainer container) {
        return new ElementConversion(queue.format(), payloads, container.payloadType());
    }
}
