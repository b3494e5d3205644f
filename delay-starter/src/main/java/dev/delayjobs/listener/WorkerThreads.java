package dev.delayjobs.listener;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.core.task.VirtualThreadTaskExecutor;

/**
 * Makes the starter's threads: those that run a queue's handlers, platform threads or virtual ones
 * on Java 21+, and its own (a queue's claimer, acker and handler-timeout timer, a container's stop).
 * The auto-configuration defines the {@code delayWorkerThreads} bean; an application's bean of this
 * type replaces it (to set a context class loader or an uncaught-exception handler, say).
 */
@FunctionalInterface
public interface WorkerThreads {

    /** Daemon platform threads named {@code delay-<queue>-<n>}. */
    WorkerThreads PLATFORM = queue -> {
        AtomicInteger count = new AtomicInteger();
        return task -> {
            Thread thread = new Thread(task, "delay-" + queue + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    };

    /**
     * Virtual threads named {@code delay-<queue>-<n>} (Java 21+; Spring Boot's
     * {@code spring.threads.virtual.enabled=true} chooses them).
     */
    WorkerThreads VIRTUAL = queue -> new VirtualThreadTaskExecutor("delay-" + queue + "-").getVirtualThreadFactory();

    /**
     * The factory of the threads that run {@code queue}'s handlers; the pool using it keeps at most
     * three times the queue's concurrency.
     */
    ThreadFactory forQueue(String queue);

    /**
     * One of the starter's own threads, not started: a platform thread named {@code name}, whatever
     * the handlers run on, as the caller sets it daemon or not.
     */
    default Thread service(String name, Runnable task) {
        return new Thread(task, name);
    }
}
