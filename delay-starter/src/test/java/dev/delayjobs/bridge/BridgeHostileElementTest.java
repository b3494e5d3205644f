package dev.delayjobs.bridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static dev.delayjobs.test.TestPartitions.whole;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RScript;
import org.redisson.client.codec.ByteArrayCodec;
import org.redisson.client.codec.StringCodec;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.bridge.BridgeHandlers.Closed;
import dev.delayjobs.bridge.BridgeHandlers.OrderClose;
import dev.delayjobs.redis.DeadJob;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/**
 * Elements written by hand into a bridged queue's Redisson keys, as anyone who can write to Redis
 * could: none of them stops the adopter, so the elements behind them are still handled.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class BridgeHostileElementTest {

    @Test
    void elementsDeclaringHugeArraysAreBuriedAndTheElementsBehindThemAreHandled() throws IOException {
        String list = "legacy-" + UUID.randomUUID();
        try (LegacyProducer raw = new LegacyProducer(list, ByteArrayCodec.INSTANCE);
                ConfigurableApplicationContext app = TestApps.run(TestRedis.uniquePrefix(), List.of(BridgeHandlers.class),
                        "test.queue=" + list, "delay.queues." + list + ".redisson-delayed-queue=" + list,
                        "delay.queues." + list + ".redisson-codec=javaSerialization",
                        "delay.queues." + list + ".redisson-allowed-classes=" + OrderClose.class.getName())) {
            raw.offer(HostileElementsTest.TWO_BILLION_LONGS, Duration.ZERO);
            raw.offer(HostileElementsTest.GIGANTIC_BYTES, Duration.ZERO);
            raw.offer(serialized(new OrderClose(7, "unpaid")), Duration.ZERO);

            RedisJobStore store = app.getBean(RedisJobStore.class);
            Closed closed = app.getBean(Closed.class);
            await().atMost(Duration.ofSeconds(20)).until(() -> closed.handledAt.containsKey(7L));
            List<String> errors = store.deadJobs().page(whole(list), 0, 10).jobs().stream().map(DeadJob::lastError).toList();
            assertThat(errors).hasSize(2).allMatch(error -> error.startsWith("element could not be read with "
                    + "SerializationCodec: it declares ") && error.contains("values in an array, more than "
                    + "delay.max-payload-size (65536) allows"));

            // the adopter is still there for what comes next
            raw.offer(serialized(new OrderClose(8, "unpaid")), Duration.ZERO);
            await().atMost(Duration.ofSeconds(20)).until(() -> closed.handledAt.containsKey(8L));
        }
    }

    /**
     * Redis returns an infinite score as "-inf", which Java's number parsing does not take: the
     * adopter met it in every pass over the overdue elements.
     */
    @Test
    void anElementDueAtMinusInfinityIsMovedAndTheAdopterKeepsMovingTheOthers() {
        String list = "legacy-" + UUID.randomUUID();
        try (LegacyProducer producer = new LegacyProducer(list, StringCodec.INSTANCE);
                ConfigurableApplicationContext app = TestApps.run(TestRedis.uniquePrefix(), List.of(BridgeHandlers.class),
                        "test.queue=" + list, "delay.queues." + list + ".redisson-delayed-queue=" + list,
                        "delay.queues." + list + ".redisson-codec=string")) {
            producer.client().getScript(StringCodec.INSTANCE).eval(RScript.Mode.READ_WRITE, """
                    local value = struct.pack('Bc0Lc0', 8, 'abcdefgh', string.len(ARGV[1]), ARGV[1])
                    redis.call('zadd', KEYS[1], '-inf', value)
                    redis.call('rpush', KEYS[2], value)
                    return 1
                    """, RScript.ReturnType.LONG, List.of("redisson_delay_queue_timeout:{" + list + "}",
                    "redisson_delay_queue:{" + list + "}"), "{\"orderId\":1,\"reason\":\"forever ago\"}");
            Closed closed = app.getBean(Closed.class);
            await().atMost(Duration.ofSeconds(20)).until(() -> closed.handledAt.containsKey(1L));

            // past the first overdue pass: the adopter still moves what Redisson transfers
            for (long id = 2; id <= 4; id++) {
                producer.offer("{\"orderId\":" + id + ",\"reason\":\"unpaid\"}", Duration.ofMillis(200));
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> closed.handledAt.keySet().containsAll(List.of(2L, 3L, 4L)));
            assertThat(closed.twice).isEmpty();
        }
    }

    private static byte[] serialized(Object value) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(value);
        }
        return bytes.toByteArray();
    }
}
