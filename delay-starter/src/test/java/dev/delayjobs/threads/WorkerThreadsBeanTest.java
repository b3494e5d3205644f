package dev.delayjobs.threads;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/**
 * The starter's threads (the consumers', the watchdog's, a bridged queue's) come from the
 * {@link WorkerThreads} bean, which an application may replace.
 */
class WorkerThreadsBeanTest {

    static class Handlers {

        final CountDownLatch handled = new CountDownLatch(1);
        volatile String handlerThread;

        @DelayedHandler(queue = "threads-made", handlerTimeout = "30s")
        void handle(String value) {
            handlerThread = Thread.currentThread().getName();
            handled.countDown();
        }

        @DelayedHandler(queue = "threads-bridged")
        void handleBridged(String value) {
        }
    }

    /** The platform threads, each recorded by name as it is made. */
    @Configuration(proxyBeanMethods = false)
    static class RecordingThreads {

        static final Queue<String> made = new ConcurrentLinkedQueue<>();

        @Bean
        WorkerThreads recordingWorkerThreads() {
            return new WorkerThreads() {

                @Override
                public ThreadFactory forQueue(String queue) {
                    ThreadFactory platform = WorkerThreads.PLATFORM.forQueue(queue);
                    return task -> record(platform.newThread(task));
                }

                @Override
                public Thread service(String name, Runnable task) {
                    return record(new Thread(task, name));
                }
            };
        }

        private static Thread record(Thread thread) {
            made.add(thread.getName());
            return thread;
        }
    }

    @Test
    void theApplicationsBeanMakesTheHandlerAndServiceThreads() throws Exception {
        String prefix = TestRedis.uniquePrefix();
        ConfigurableApplicationContext context = TestApps.run(prefix, List.of(Handlers.class, RecordingThreads.class),
                "delay.queues.threads-bridged.redisson-delayed-queue=" + prefix + "threads-bridged-list",
                "delay.queues.threads-bridged.redisson-codec=string");
        try {
            assertThat(context.getBeansOfType(WorkerThreads.class)).containsOnlyKeys("recordingWorkerThreads");
            context.getBean(DelayPublisher.class).publish("threads-made", "x", Duration.ZERO);
            Handlers handlers = context.getBean(Handlers.class);
            assertThat(handlers.handled.await(20, TimeUnit.SECONDS)).isTrue();
            assertThat(RecordingThreads.made).contains(handlers.handlerThread, "delay-threads-made-claimer",
                    "delay-threads-made-acker", "delay-threads-made-timeout", "delay-watchdog-timer-1",
                    "delay-bridge-threads-bridged");
            assertThat(RecordingThreads.made).as("the watchdog's lanes").anyMatch(name -> name.matches("delay-watchdog-\\d+"));
            assertThat(handlers.handlerThread).startsWith("delay-threads-made-");
        }
        finally {
            context.close();
        }
        assertThat(RecordingThreads.made).contains("delay-stop-threads-made");
    }

    @Test
    void withoutOneTheStarterDefinesPlatformThreads() {
        try (ConfigurableApplicationContext context = TestApps.run(TestRedis.uniquePrefix(), List.of(Handlers.class))) {
            assertThat(context.getBean("delayWorkerThreads")).isSameAs(WorkerThreads.PLATFORM);
        }
    }
}
