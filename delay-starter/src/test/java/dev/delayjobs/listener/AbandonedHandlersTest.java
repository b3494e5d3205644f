package dev.delayjobs.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static dev.delayjobs.test.TestPartitions.whole;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.delayjobs.DelayedHandler;
import dev.delayjobs.redis.QueueStats;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.test.RunningApp;

/**
 * Handlers that ignore the interrupt after their timeout do not grow the worker pool without
 * bound: up to {@code concurrency} abandoned threads free their worker at once, the next ones keep
 * it until they return, so a stuck downstream costs at most twice the configured threads.
 */
class AbandonedHandlersTest {

    static class Handlers {

        final Set<Thread> entered = ConcurrentHashMap.newKeySet();
        volatile boolean released;

        @DelayedHandler(queue = "stuck", concurrency = "2", maxAttempts = "1", handlerTimeout = "200ms")
        void handle(String value) {
            entered.add(Thread.currentThread());
            while (!released) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
                Thread.interrupted(); // a handler stuck in a call that ignores interrupts
            }
        }
    }

    @RegisterExtension
    static final RunningApp<Handlers> app = RunningApp.of(Handlers.class);

    @Test
    void atMostTwiceTheConcurrencyOfHandlersAreStuckAndAllRecoverOnceTheyReturn() {
        for (int i = 0; i < 12; i++) {
            app.publisher().publish("stuck", "job-" + i, Duration.ZERO, "job-" + i);
        }
        RedisJobStore store = app.context().getBean(RedisJobStore.class);
        // four handlers time out (two free their worker at once, two keep it): then nothing moves
        await().atMost(Duration.ofSeconds(10)).until(() -> store.stats(whole("stuck")).dead() == 4);
        // and it stays so: no fifth thread enters while the four are stuck
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> app.handlers().entered.size() == 4);
        assertThat(app.handlers().entered).as("threads that entered the handler").hasSize(4);
        assertThat(store.stats(whole("stuck")).dead()).isEqualTo(4);

        app.handlers().released = true;
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            QueueStats stats = store.stats(whole("stuck"));
            return stats.ready() == 0 && stats.running() == 0 && stats.delayed() == 0;
        });
        assertThat(store.stats(whole("stuck")).dead()).as("the four timed out; the other eight were handled").isEqualTo(4);
    }
}
