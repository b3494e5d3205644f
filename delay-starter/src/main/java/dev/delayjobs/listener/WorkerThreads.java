package dev.delayjobs.listener;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.core.task.VirtualThreadTaskExecutor;

/** Makes the threads that run a queue's handlers: platform threads, or virtual ones on Java 21+. */
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

    ThreadFactory forQueue(String queue);
}
