package dev.delayjobs.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadFactory;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;

import dev.delayjobs.threads.WorkerThreads;
import dev.delayjobs.timer.QueueWatchdog;

/**
 * The {@code delayWorkerThreads} bean makes every thread of the starter: platform threads by
 * default, virtual ones with {@code spring.threads.virtual.enabled=true} on Java 21+, and an
 * application's bean replaces it. Built without Redis.
 */
class WorkerThreadsAutoConfigurationTest {

    private static final boolean JVM_HAS_VIRTUAL_THREADS = Runtime.version().feature() >= 21;

    @Test
    void platformThreadsByDefault() throws Exception {
        try (NoRedis redis = new NoRedis()) {
            runner(redis).run(context -> {
                assertThat(context).hasNotFailed();
                WorkerThreads threads = context.getBean(WorkerThreads.class);
                assertThat(threads).isSameAs(WorkerThreads.PLATFORM);
                assertThat(isVirtual(threads.forQueue("orders").newThread(() -> { }))).isFalse();
                assertThat(isVirtual(threads.service("delay-orders-claimer", () -> { }))).isFalse();
            });
        }
    }

    @Test
    void virtualThreadsWithSpringBootsPropertyOnJava21() throws Exception {
        try (NoRedis redis = new NoRedis()) {
            runner(redis).withPropertyValues("spring.threads.virtual.enabled=true").run(context -> {
                assertThat(context).hasNotFailed();
                WorkerThreads threads = context.getBean(WorkerThreads.class);
                assertThat(threads).as("on Java %s", Runtime.version().feature())
                        .isSameAs(JVM_HAS_VIRTUAL_THREADS ? WorkerThreads.VIRTUAL : WorkerThreads.PLATFORM);
                Thread worker = threads.forQueue("orders").newThread(() -> { });
                Thread service = threads.service("delay-orders-claimer", () -> { });
                Thread pooled = threads.serviceThreads("delay-watchdog-").newThread(() -> { });
                assertThat(worker.getName()).isEqualTo("delay-orders-1");
                assertThat(service.getName()).isEqualTo("delay-orders-claimer");
                assertThat(pooled.getName()).isEqualTo("delay-watchdog-1");
                for (Thread thread : new Thread[] { worker, service, pooled }) {
                    assertThat(isVirtual(thread)).as(thread.getName()).isEqualTo(JVM_HAS_VIRTUAL_THREADS);
                }
            });
        }
    }

    @Test
    void theApplicationsBeanReplacesItAndMakesTheWatchdogsThreads() throws Exception {
        Queue<String> made = new ConcurrentLinkedQueue<>();
        WorkerThreads recording = new WorkerThreads() {

            @Override
            public ThreadFactory forQueue(String queue) {
                return WorkerThreads.PLATFORM.forQueue(queue);
            }

            @Override
            public Thread service(String name, Runnable task) {
                made.add(name);
                return new Thread(task, name);
            }
        };
        try (NoRedis redis = new NoRedis()) {
            runner(redis).withBean("myThreads", WorkerThreads.class, () -> recording).run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBeansOfType(WorkerThreads.class)).containsOnlyKeys("myThreads");
                QueueWatchdog watchdog = context.getBean(QueueWatchdog.class);
                // the watchdog's start makes its timer thread and calls no Redis: no queue is watched yet
                watchdog.start();
                try {
                    assertThat(made).contains("delay-watchdog-timer-1");
                }
                finally {
                    watchdog.stop();
                }
            });
        }
    }

    private static org.springframework.boot.test.context.runner.ApplicationContextRunner runner(NoRedis redis) {
        return redis.runner().withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class,
                DelayAutoConfiguration.class));
    }

    /** {@code Thread.isVirtual()}, which Java 17 lacks (no thread is virtual there). */
    static boolean isVirtual(Thread thread) throws ReflectiveOperationException {
        return JVM_HAS_VIRTUAL_THREADS && (boolean) Thread.class.getMethod("isVirtual").invoke(thread);
    }
}
