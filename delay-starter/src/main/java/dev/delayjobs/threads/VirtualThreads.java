package dev.delayjobs.threads;

import java.util.concurrent.ThreadFactory;

import org.springframework.core.task.VirtualThreadTaskExecutor;

/** {@link WorkerThreads#VIRTUAL}: every thread virtual, named as the platform ones. */
final class VirtualThreads implements WorkerThreads {

    /** Made at first use: Spring's executor refuses to be built before Java 21. */
    private volatile ThreadFactory factory;

    @Override
    public ThreadFactory forQueue(String queue) {
        return serviceThreads("delay-" + queue + "-");
    }

    @Override
    public Thread service(String name, Runnable task) {
        ThreadFactory virtual = factory;
        if (virtual == null) {
            virtual = new VirtualThreadTaskExecutor().getVirtualThreadFactory();
            factory = virtual;
        }
        Thread thread = virtual.newThread(task);
        thread.setName(name);
        return thread;
    }
}
