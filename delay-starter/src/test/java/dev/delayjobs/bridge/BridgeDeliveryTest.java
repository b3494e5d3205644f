package dev.delayjobs.bridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static dev.delayjobs.test.TestPartitions.whole;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.redisson.client.codec.Codec;
import org.redisson.client.codec.StringCodec;
import org.redisson.codec.JsonJacksonCodec;
import org.redisson.codec.Kryo5Codec;
import org.redisson.codec.SerializationCodec;
import org.redisson.codec.TypedJsonJacksonCodec;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.bridge.BridgeHandlers.Closed;
import dev.delayjobs.bridge.BridgeHandlers.OrderClose;
import dev.delayjobs.redis.QueueStats;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/**
 * Compatibility mode end to end: producers that know nothing of the starter offer to an
 * {@code RDelayedQueue} with plain Redisson, in each supported codec, with mixed delays; the
 * starter's handler gets every element once, typed, and none before it is due.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
@Tag("slow")
@Tag("bridge")
class BridgeDeliveryTest {

    private static final int ELEMENTS = 300;

    static Stream<Arguments> codecs() {
        Function<OrderClose, Object> asJsonText = order -> "{\"orderId\":" + order.orderId() + ",\"reason\":\""
                + order.reason() + "\"}";
        return Stream.of(
                Arguments.of("string", StringCodec.INSTANCE, asJsonText, List.<String>of()),
                Arguments.of("json", new JsonJacksonCodec(), Function.<Object>identity(), List.<String>of()),
                Arguments.of("typedJson", new TypedJsonJacksonCodec(OrderClose.class), Function.<Object>identity(),
                        List.<String>of()),
                Arguments.of("kryo", new Kryo5Codec(), Function.<Object>identity(), List.of(OrderClose.class.getName())),
                Arguments.of("javaSerialization", new SerializationCodec(), Function.<Object>identity(),
                        List.of("dev.delayjobs.bridge.*")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("codecs")
    void everyElementOfferedByPlainRedissonIsHandledOnceAndNeverEarly(String codecName, Codec codec,
            Function<OrderClose, Object> element, List<String> allowed) {
        String list = "legacy-" + UUID.randomUUID();
        try (LegacyProducer producer = new LegacyProducer(list, codec);
                ConfigurableApplicationContext app = TestApps.run(TestRedis.uniquePrefix(), List.of(BridgeHandlers.class),
                        "test.queue=" + list,
                        "delay.queues." + list + ".redisson-delayed-queue=" + list,
                        "delay.queues." + list + ".redisson-codec=" + codecName,
                        "delay.queues." + list + ".redisson-allowed-classes=" + String.join(",", allowed))) {
            Random random = new Random(7);
            Map<Long, Long> dueAt = new HashMap<>();
            for (long id = 0; id < ELEMENTS; id++) {
                Duration delay = Duration.ofMillis(id % 5 == 0 ? 0 : random.nextInt(3000));
                dueAt.put(id, producer.offer(element.apply(new OrderClose(id, "unpaid")), delay));
            }
            Closed closed = app.getBean(Closed.class);
            await().atMost(Duration.ofSeconds(30)).until(() -> closed.handledAt.size() == ELEMENTS);

            assertThat(closed.twice).as("handled twice").isEmpty();
            dueAt.forEach((id, due) -> assertThat(closed.handledAt.get(id)).as("order " + id + " handled at or after its due time")
                    .isGreaterThanOrEqualTo(due));
            // the handler records a job before its ack is written (acks are batched): wait for the last acks
            RedisJobStore store = app.getBean(RedisJobStore.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> store.stats(whole(list)).totals().getOrDefault("completed", 0L) == ELEMENTS);
            QueueStats stats = store.stats(whole(list));
            assertThat(stats.bridge()).isNotNull();
            assertThat(stats.bridge().delayed()).isZero();
            assertThat(stats.bridge().ready()).isZero();
            assertThat(stats.totals().get("completed")).isEqualTo(ELEMENTS);
        }
    }
}
