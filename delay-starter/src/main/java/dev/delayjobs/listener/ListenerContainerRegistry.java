package dev.delayjobs.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.BeanInitializationException;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.SmartLifecycle;

import dev.delayjobs.DelayContainerCustomizer;
import dev.delayjobs.core.JobEvents;
import dev.delayjobs.core.DurationText;
import dev.delayjobs.core.PayloadCodec;
import dev.delayjobs.partition.QueueLayouts;
import dev.delayjobs.redis.QueueControls;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.threads.WorkerThreads;
import dev.delayjobs.timer.QueueWatchdog;

/**
 * Holds one {@link ListenerContainer} per {@code @DelayedHandler} queue and runs them with the
 * application context: they start last, once everything else is up, and stop first.
 */
public final class ListenerContainerRegistry implements SmartLifecycle, SmartInitializingSingleton {

    private static final Log logger = LogFactory.getLog(ListenerContainerRegistry.class);

    /** Phase of the containers: after the watchdog they rely on. */
    public static final int PHASE = QueueWatchdog.PHASE + 100;

    private final RedisJobStore store;
    private final QueueLayouts layouts;
    private final QueueControls controls;
    private final QueueWatchdog watchdog;
    private final PayloadCodec codec;
    private final Duration shutdownTimeout;
    private final JobEvents events;
    private final WorkerThreads workerThreads;
    /** The customizers in order, read once every singleton exists (they may depend on any bean). */
    private final Supplier<List<DelayContainerCustomizer>> customizers;
    private List<DelayContainerCustomizer> resolvedCustomizers;
    private final Map<String, Registered> containers = new LinkedHashMap<>();
    private volatile boolean running;

    public ListenerContainerRegistry(RedisJobStore store, QueueLayouts layouts, QueueControls controls, QueueWatchdog watchdog,
            PayloadCodec codec, Duration shutdownTimeout, JobEvents events, WorkerThreads workerThreads) {
        this(store, layouts, controls, watchdog, codec, shutdownTimeout, events, workerThreads, List::of);
    }

    /**
     * A registry that applies {@code customizers} to each container before it is built: to those
     * registered so far once every singleton exists, and to later ones when they register.
     */
    public ListenerContainerRegistry(RedisJobStore store, QueueLayouts layouts, QueueControls controls, QueueWatchdog watchdog,
            PayloadCodec codec, Duration shutdownTimeout, JobEvents events, WorkerThreads workerThreads,
            Supplier<List<DelayContainerCustomizer>> customizers) {
        this.customizers = customizers;
        this.layouts = layouts;
        this.controls = controls;
        this.workerThreads = workerThreads;
        this.store = store;
        this.watchdog = watchdog;
        this.codec = codec;
        this.shutdownTimeout = shutdownTimeout;
        this.events = events;
    }

    synchronized void register(HandlerEndpoint endpoint) {
        Registered existing = containers.get(endpoint.queue());
        if (existing != null) {
            throw new BeanInitializationException("Two @DelayedHandler methods consume queue '" + endpoint.queue() + "': "
                    + existing.endpoint.describe() + " and " + endpoint.describe() + "; a queue has one handler");
        }
        containers.put(endpoint.queue(), build(endpoint));
    }

    /** Applies the customizers to the containers registered while the singletons were created. */
    @Override
    public synchronized void afterSingletonsInstantiated() {
        resolvedCustomizers = List.copyOf(customizers.get());
        containers.replaceAll((queue, registered) -> build(registered.endpoint));
    }

    private Registered build(HandlerEndpoint endpoint) {
        HandlerEndpoint built = endpoint;
        Duration timeout = shutdownTimeout;
        if (resolvedCustomizers != null && !resolvedCustomizers.isEmpty()) {
            CustomizedContainer customized = new CustomizedContainer(endpoint.queue(), endpoint.settings(), shutdownTimeout);
            for (DelayContainerCustomizer customizer : resolvedCustomizers) {
                try {
                    customizer.customize(customized);
                }
                catch (IllegalArgumentException ex) {
                    throw new BeanInitializationException("Customizer " + customizer.getClass().getName() + " set an invalid value on queue '"
                            + endpoint.queue() + "': " + ex.getMessage(), ex);
                }
            }
            built = endpoint.withSettings(customized.settings());
            timeout = customized.shutdownTimeout();
        }
        return new Registered(built, new ListenerContainer(built, store, layouts, watchdog, codec, timeout, events, workerThreads,
                controls));
    }

    /** The containers, in registration order. */
    public synchronized List<ListenerContainer> getContainers() {
        return containers.values().stream().map(Registered::container).toList();
    }

    public synchronized Optional<ListenerContainer> getContainer(String queue) {
        return Optional.ofNullable(containers.get(queue)).map(Registered::container);
    }

    @Override
    public synchronized void start() {
        for (Registered registered : containers.values()) {
            if (registered.endpoint.settings().autoStartup()) {
                registered.container.start();
                int partitions = registered.container.partitions();
                logger.info("Queue '" + registered.endpoint.queue() + "': consumed by " + registered.endpoint.describe()
                        + ", " + describe(registered.endpoint.settings()) + (partitions > 1 ? ", " + partitions + " partitions" : ""));
            }
            else {
                logger.info("Queue '" + registered.endpoint.queue() + "': handled by " + registered.endpoint.describe()
                        + ", not started (autoStartup is false)");
            }
        }
        running = true;
    }

    /** Stops every container at once, so the shutdown timeout applies once, not once per queue. */
    @Override
    public void stop() {
        Collection<ListenerContainer> all;
        synchronized (this) {
            running = false;
            all = getContainers();
        }
        List<Thread> stopping = new ArrayList<>();
        for (ListenerContainer container : all) {
            Thread thread = workerThreads.service("delay-stop-" + container.queue(), container::stop);
            thread.start();
            stopping.add(thread);
        }
        for (Thread thread : stopping) {
            try {
                thread.join();
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /** "concurrency 4, max attempts 5, backoff 1s x2.0 up to 5m, handler timeout none[, rate limit 50/1s][, paused on startup]". */
    static String describe(QueueSettings settings) {
        QueueSettings.ExponentialBackoff backoff = settings.backoff();
        return "concurrency " + settings.concurrency() + ", max attempts " + settings.maxAttempts() + ", backoff "
                + DurationText.of(backoff.initial()) + " x" + backoff.multiplier() + " up to " + DurationText.of(backoff.max())
                + ", handler timeout " + DurationText.of(settings.handlerTimeout())
                + (settings.rateLimit() == null ? "" : ", rate limit " + settings.rateLimit())
                + (settings.pausedOnStartup() ? ", paused on startup" : "");
    }

    private record Registered(HandlerEndpoint endpoint, ListenerContainer container) {
    }
}
