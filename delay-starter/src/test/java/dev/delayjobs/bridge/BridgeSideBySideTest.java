package dev.delayjobs.bridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static dev.delayjobs.test.TestPartitions.whole;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.redisson.api.RBlockingQueue;
import org.redisson.client.codec.StringCodec;
import org.redisson.client.codec.Codec;
import org.redisson.codec.Kryo5Codec;
import org.redisson.codec.SerializationCodec;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.PublishRequest;
import dev.delayjobs.bridge.BridgeHandlers.Closed;
import dev.delayjobs.bridge.BridgeHandlers.OrderClose;
import dev.delayjobs.redis.DeadJob;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/**
 * A rolling migration as it happens: consumers still blocked in {@code take()} next to the
 * starter, the starter publishing to the {@code RDelayedQueue} they read, and elements the
 * starter must not read.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
@Tag("slow")
@Tag("bridge")
class BridgeSideBySideTest {

    @Test
    void oldTakeConsumersAndTheStarterHandleEveryElementOnceBetweenThem() throws Exception {
        String list = "legacy-" + UUID.randomUUID();
        int beforeStart = 20;
        int sideBySide = 600;
        int afterOldStopped = 50;
        Map<Long, Integer> takenByOld = new ConcurrentHashMap<>();
        try (LegacyProducer producer = new LegacyProducer(list, StringCodec.INSTANCE)) {
            RBlockingQueue<String> queue = producer.client().getBlockingQueue(list, StringCodec.INSTANCE);
            List<Thread> oldConsumers = List.of(oldConsumer(queue, takenByOld), oldConsumer(queue, takenByOld));
            oldConsumers.forEach(Thread::start);
            long id = 0;
            // the old consumers alone, as before the starter is deployed
            for (; id < beforeStart; id++) {
                producer.offer(order(id), Duration.ZERO);
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> takenByOld.size() == beforeStart);

            try (ConfigurableApplicationContext app = bridgedApp(list, "string")) {
                Closed closed = app.getBean(Closed.class);
                // both sides take from the same list: whichever comes first gets an element
                for (; id < beforeStart + sideBySide; id++) {
                    producer.offer(order(id), Duration.ofMillis(id % 1500));
                }
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> closed.handledAt.size() + takenByOld.size() == beforeStart + sideBySide);
                // the old consumers retired: the starter alone
                oldConsumers.forEach(Thread::interrupt);
                for (Thread consumer : oldConsumers) {
                    consumer.join(5000);
                }
                int takenBeforeRetiring = takenByOld.size();
                for (; id < beforeStart + sideBySide + afterOldStopped; id++) {
                    producer.offer(order(id), Duration.ofMillis(id % 500));
                }
                long total = id;
                await().atMost(Duration.ofSeconds(30)).until(() -> closed.handledAt.size() + takenByOld.size() == total);

                assertThat(closed.twice).isEmpty();
                assertThat(takenByOld.values()).as("taken twice by old consumers").allMatch(count -> count == 1);
                assertThat(closed.handledAt.keySet()).as("handled by both").doesNotContainAnyElementsOf(takenByOld.keySet());
                assertThat(takenByOld).hasSize(takenBeforeRetiring);
                for (long late = beforeStart + sideBySide; late < total; late++) {
                    assertThat(closed.handledAt).as("order " + late + ", offered after the old consumers stopped")
                            .containsKey(late);
                }
            }
        }
    }

    private static String order(long id) {
        return "{\"orderId\":" + id + ",\"reason\":\"unpaid\"}";
    }

    @Test
    void publishesToTheRDelayedQueueSoOldConsumersReceiveAndRefusesWhatItCannotDo() throws Exception {
        String list = "legacy-" + UUID.randomUUID();
        // no handler for the queue here: only the old consumer reads it
        try (LegacyProducer oldSide = new LegacyProducer(list, StringCodec.INSTANCE);
                ConfigurableApplicationContext app = TestApps.run(TestRedis.uniquePrefix(), List.of(),
                        "delay.queues." + list + ".redisson-delayed-queue=" + list,
                        "delay.queues." + list + ".redisson-codec=string")) {
            DelayPublisher publisher = app.getBean(DelayPublisher.class);
            long before = System.currentTimeMillis();
            publisher.publish(list, new OrderClose(1, "unpaid"), Duration.ofMillis(300));
            publisher.publishAt(list, new OrderClose(2, "unpaid"), Instant.now().plusMillis(600));

            RBlockingQueue<String> queue = oldSide.client().getBlockingQueue(list, StringCodec.INSTANCE);
            String first = queue.poll(10, TimeUnit.SECONDS);
            long firstAt = System.currentTimeMillis();
            String second = queue.poll(10, TimeUnit.SECONDS);
            assertThat(first).isEqualTo("{\"orderId\":1,\"reason\":\"unpaid\"}");
            assertThat(second).isEqualTo("{\"orderId\":2,\"reason\":\"unpaid\"}");
            assertThat(firstAt - before).isGreaterThanOrEqualTo(300);

            assertThatThrownBy(() -> publisher.publish(list, PublishRequest.of(new OrderClose(3, "x")).key("order-3")))
                    .isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("compatibility mode over the Redisson RDelayedQueue '" + list + "'")
                    .hasMessageContaining("publishing with a business key");
            assertThatThrownBy(() -> publisher.cancel(list, "any")).isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("cancel by id");
            assertThatThrownBy(() -> publisher.find(list, "any")).isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("find by id");
            assertThatThrownBy(() -> publisher.reschedule(list, "any", Duration.ofSeconds(1)))
                    .isInstanceOf(UnsupportedOperationException.class);
            assertThat(queue.size()).as("a refused publish offers nothing").isZero();
        }
    }

    @Test
    void withRedissonPublishOffPublishesAreNativeWhileWhatOldProducersOfferIsStillHandled() {
        String list = "legacy-" + UUID.randomUUID();
        try (LegacyProducer oldProducer = new LegacyProducer(list, StringCodec.INSTANCE);
                ConfigurableApplicationContext app = TestApps.run(TestRedis.uniquePrefix(), List.of(BridgeHandlers.class),
                        "test.queue=" + list, "delay.queues." + list + ".redisson-delayed-queue=" + list,
                        "delay.queues." + list + ".redisson-codec=string", "delay.queues." + list + ".redisson-publish=false")) {
            DelayPublisher publisher = app.getBean(DelayPublisher.class);
            Closed closed = app.getBean(Closed.class);
            String id = publisher.publish(list, PublishRequest.of(new OrderClose(1, "unpaid")).delay(Duration.ofMillis(300))
                    .key("order-1"));
            assertThat(publisher.find(list, id)).as("a native job: found by its id").isPresent();
            assertThat(oldProducer.client().getScoredSortedSet("redisson_delay_queue_timeout:{" + list + "}").size())
                    .as("nothing offered to the RDelayedQueue").isZero();
            String cancelled = publisher.publish(list, new OrderClose(2, "unpaid"), Duration.ofMinutes(5));
            assertThat(publisher.cancel(list, cancelled)).isTrue();
            oldProducer.offer("{\"orderId\":3,\"reason\":\"unpaid\"}", Duration.ofMillis(200));

            await().atMost(Duration.ofSeconds(20)).until(() -> closed.handledAt.keySet().containsAll(List.of(1L, 3L)));
            assertThat(closed.handledAt).containsOnlyKeys(1L, 3L);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = { "kryo", "javaSerialization" })
    void anElementNamingAClassNotAllowedGoesToTheDeadSetWithTheReason(String codecName) {
        String list = "legacy-" + UUID.randomUUID();
        Codec codec = codecName.equals("kryo") ? new Kryo5Codec() : new SerializationCodec();
        String codecClass = codec.getClass().getSimpleName();
        try (LegacyProducer producer = new LegacyProducer(list, codec);
                ConfigurableApplicationContext app = TestApps.run(TestRedis.uniquePrefix(), List.of(BridgeHandlers.class),
                        "test.queue=" + list, "delay.queues." + list + ".redisson-delayed-queue=" + list,
                        "delay.queues." + list + ".redisson-codec=" + codecName,
                        "delay.queues." + list + ".redisson-allowed-classes=" + OrderClose.class.getName())) {
            producer.offer(new NotAllowed("anything"), Duration.ZERO);
            producer.offer("just a string", Duration.ZERO);
            producer.offer(new OrderClose(9, "unpaid"), Duration.ZERO);

            RedisJobStore store = app.getBean(RedisJobStore.class);
            Closed closed = app.getBean(Closed.class);
            await().atMost(Duration.ofSeconds(20)).until(() -> store.deadJobs().page(whole(list), 0, 10).total() == 2
                    && closed.handledAt.containsKey(9L));
            Set<String> errors = Set.copyOf(store.deadJobs().page(whole(list), 0, 10).jobs().stream().map(DeadJob::lastError).toList());
            assertThat(errors).containsExactlyInAnyOrder(
                    "element could not be read with " + codecClass + ": it names " + NotAllowed.class.getName()
                            + ", which is not an allowed class",
                    "element is a java.lang.String, the handler takes " + OrderClose.class.getName());
            assertThat(closed.handledAt).containsOnlyKeys(9L);
        }
    }

    /** A class no allow-list names: a stand-in for the gadget classes of a deserialization attack. */
    record NotAllowed(String value) implements java.io.Serializable {
    }

    private static ConfigurableApplicationContext bridgedApp(String list, String codec) {
        return TestApps.run(TestRedis.uniquePrefix(), List.of(BridgeHandlers.class), "test.queue=" + list,
                "delay.queues." + list + ".redisson-delayed-queue=" + list, "delay.queues." + list + ".redisson-codec=" + codec);
    }

    /** A consumer written before the starter: {@code take()} in a loop (here with a timeout, to stop it). */
    private static Thread oldConsumer(RBlockingQueue<String> queue, Map<Long, Integer> taken) {
        return new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    String element = queue.poll(1, TimeUnit.SECONDS);
                    if (element != null) {
                        long id = Long.parseLong(element.replaceAll("^\\{\"orderId\":(\\d+),.*$", "$1"));
                        taken.merge(id, 1, Integer::sum);
                    }
                }
                catch (InterruptedException ex) {
                    return;
                }
                catch (RuntimeException ex) {
                    if (Thread.currentThread().isInterrupted()) {
                        return;
                    }
                    throw ex;
                }
            }
        });
    }
}
