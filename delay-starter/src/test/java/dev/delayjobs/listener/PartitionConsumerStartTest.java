package dev.delayjobs.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.delayjobs.test.TestPartitions.whole;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.delayjobs.DelayedHandler;
import dev.delayjobs.core.JobEvents;
import dev.delayjobs.core.PayloadCodec;
import dev.delayjobs.redis.QueueControls;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.test.RunningApp;
import dev.delayjobs.threads.WorkerThreads;
import dev.delayjobs.timer.QueueWatchdog;
import dev.delayjobs.queue.QueueName;

/**
 * A partition's consumer is built without side effects: its threads and its heartbeat start with
 * {@link PartitionConsumer#start}, which the container calls, and its stop ends them.
 */
class PartitionConsumerStartTest {

    static class Handlers {

        @DelayedHandler(queue = "built-idle", autoStartup = "false")
        void handle(String value) {
        }
    }

    @RegisterExtension
    static final RunningApp<Handlers> app = RunningApp.of(Handlers.class);

    @Test
    void buildingAConsumerStartsNoThreadAndCallsNoRedisUntilItsStart() throws Exception {
        RedisJobStore store = app.context().getBean(RedisJobStore.class);
        QueueWatchdog watchdog = app.context().getBean(QueueWatchdog.class);
        PayloadCodec codec = app.context().getBean(PayloadCodec.class);
        Method method = Handlers.class.getDeclaredMethod("handle", String.class);
        HandlerEndpoint endpoint = new HandlerEndpoint("handlers", app.handlers(), method, QueueName.of("built-idle"),
                app.context().getBean(QueueSettings.Source.class).forQueue("built-idle"), codec.type(String.class),
                String.class, false);

        PartitionConsumer consumer = new PartitionConsumer(QueueName.of("built-idle").whole(),
                endpoint, store.partition(whole("built-idle")), watchdog, app.context().getBean(QueueControls.class), codec,
                JobEvents.NONE, WorkerThreads.PLATFORM, new QueueSlots(1, 1), new PendingAcks(), () -> false);
        assertThat(threadsOf("built-idle")).as("threads once built").isEmpty();
        assertThat(store.stats(whole("built-idle")).instances()).as("consumers in Redis once built").isEmpty();

        consumer.start();
        assertThat(threadsOf("built-idle")).as("threads once started")
                .contains("delay-built-idle-claimer", "delay-built-idle-acker");
        assertThat(store.stats(whole("built-idle")).instances()).as("consumers in Redis once started").hasSize(1);

        consumer.stopClaiming();
        assertThat(consumer.awaitHandlers(Duration.ofSeconds(5))).isTrue();
        consumer.finish(true);
        assertThat(threadsOf("built-idle")).as("threads once stopped").isEmpty();
        assertThat(store.stats(whole("built-idle")).instances()).as("consumers in Redis once stopped").isEmpty();
    }

    /** The names of the live threads of a consumer of {@code partition}. */
    private static List<String> threadsOf(String partition) {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(name -> name.startsWith("delay-" + partition + "-")).toList();
    }
}
