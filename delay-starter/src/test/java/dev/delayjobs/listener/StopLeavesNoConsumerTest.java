package dev.delayjobs.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.delayjobs.test.TestPartitions.whole;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.delayjobs.DelayedHandler;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.test.RunningApp;

/**
 * A stopped container leaves no consumer entry behind: a heartbeat that landed between its release
 * and the end of its heartbeats entered the instance again, a ghost consumer until its lease ran out.
 * Heartbeats every 2 ms make that window easy to hit.
 */
class StopLeavesNoConsumerTest {

    static class Handlers {

        @DelayedHandler(queue = "ghosts")
        void handle(String value) {
        }
    }

    @RegisterExtension
    static final RunningApp<Handlers> app = RunningApp.of(Handlers.class, "delay.heartbeat-interval=2ms");

    @RepeatedTest(20)
    void stopForgetsTheInstanceForGood() {
        ListenerContainer container = app.context().getBean(ListenerContainerRegistry.class).getContainer("ghosts")
                .orElseThrow();
        RedisJobStore store = app.context().getBean(RedisJobStore.class);
        container.start();
        container.stop();
        assertThat(store.stats(whole("ghosts")).instances()).as("consumers after stop").isEmpty();
    }
}
