package dev.delayjobs.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.delayjobs.DelayedHandler;
import dev.delayjobs.test.RunningApp;

/**
 * With {@code spring.threads.virtual.enabled=true}, handlers run on virtual threads where the JVM
 * has them (Java 21+) and on platform threads on Java 17; this test runs on the JDK of the build.
 */
class VirtualThreadsTest {

    static class Handlers {

        final AtomicReference<Thread> thread = new AtomicReference<>();

        @DelayedHandler(queue = "mails")
        void mail(String mail) {
            thread.set(Thread.currentThread());
        }
    }

    @RegisterExtension
    static final RunningApp<Handlers> app = RunningApp.of(Handlers.class, "spring.threads.virtual.enabled=true");

    @Test
    void handlersRunOnVirtualThreadsWhereTheJvmHasThem() throws Exception {
        app.publisher().publish("mails", "hello", Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> app.handlers().thread.get() != null);
        Thread worker = app.handlers().thread.get();
        boolean jvmHasVirtualThreads = Runtime.version().feature() >= 21;
        boolean virtual = jvmHasVirtualThreads && (boolean) Thread.class.getMethod("isVirtual").invoke(worker);
        assertThat(virtual).as("virtual on Java %s", Runtime.version().feature()).isEqualTo(jvmHasVirtualThreads);
        assertThat(worker.getName()).startsWith("delay-mails-");
    }
}
