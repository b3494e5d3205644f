package dev.delayjobs.threads;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

/**
 * Makes every thread the starter runs: those that run a queue's handlers, and its own (a queue's
 * claimer, acker and handler-timeout timer, a container's stop, the watchdog's timer and lanes, a
 * bridged queue's adopter). {@link #PLATFORM} makes platform threads, {@link #VIRTUAL} virtual ones
 * (Java 21+), with the same names. The auto-configuration defines the {@code delayWorkerThreads}
 * bean, {@code VIRTUAL} when Spring Boot's {@code spring.threads.virtual.enabled=true}; an
 * application's bean of this type replaces it (to set a context class loader or an
 * uncaught-exception handler, say).
 */
@FunctionalInterface
public interface WorkerThreads {

    /** Daemon platform threads named {@code delay-<queue>-<n>}; the service threads are platform threads too. */
    WorkerThreads PLATFORM = queue -> numbered("delay-" + queue + "-", (name, task) -> new Thread(task, name));

    /**
     * Virtual threads named {@code delay-<queue>-<n>}, and virtual service threads (Java 21+; Spring
     * Boot's {@code spring.threads.virtual.enabled=true} chooses them).
     */
    WorkerThreads VIRTUAL = new VirtualThreads();

    /**
     * The factory of the threads that run {@code queue}'s handlers; the pool using it keeps at most
     * three times the queue's concurrency.
     */
    ThreadFactory forQueue(String queue);

    /**
     * One of the starter's own threads, not started, named {@code name}: a platform thread that the
     * caller sets daemon or not, unless this makes virtual threads (daemon always).
     */
    default Thread service(String name, Runnable task) {
        return new Thread(task, name);
    }

    /**
     * Daemon service threads named {@code prefix<n>}, counting from 1, each made by
     * {@link #service}: for the starter's own pools, such as the watchdog's.
     */
    default ThreadFactory serviceThreads(String prefix) {
        return numbered(prefix, (name, task) -> service(name, task));
    }

    /** Daemon threads named {@code prefix<n>}, each made by {@code maker} from its name and task. */
    private static ThreadFactory numbered(String prefix, BiFunction<String, Runnable, Thread> maker) {
        AtomicInteger count = new AtomicInteger();
        return task -> {
            Thread thread = maker.apply(prefix + count.incrementAndGet(), task);
            thread.setDaemon(true);
            return thread;
        };
    }
}
