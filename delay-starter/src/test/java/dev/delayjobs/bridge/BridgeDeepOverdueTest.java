package dev.delayjobs.bridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.bridge.BridgeHandlers.Closed;
import dev.delayjobs.embeddedredis.RespConnection;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/**
 * Elements Redisson's transfer left overdue, in the middle of a pending list of 300,000 entries
 * (due soon, offered after many due late) and at its tail: the adopter moves each once, leaves
 * every other element where it was, and no script call it makes holds Redis for long, where one
 * call removing 100 elements from the middle of the list used to take hundreds of milliseconds.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
@Tag("slow")
@Tag("bridge")
class BridgeDeepOverdueTest {

    private static final int LATER = 300_000;
    private static final int OVERDUE = 100;

    /** What RDelayedQueue.offer writes (Redisson 4.7's layout), for ids ARGV[2].. ARGV[3], without its wake message. */
    private static final String OFFER_WITHOUT_WAKE = """
            for id = tonumber(ARGV[2]), tonumber(ARGV[3]) do
              local json = '{"orderId":' .. id .. ',"reason":"unpaid"}'
              local value = struct.pack('Bc0Lc0', 12, string.format('%012d', id), string.len(json), json)
              redis.call('zadd', KEYS[1], ARGV[1], value)
              redis.call('rpush', KEYS[2], value)
            end
            return 1
            """;

    @Test
    void overdueElementsDeepInALongPendingListAreMovedOnceInShortCalls() {
        String list = "legacy-" + UUID.randomUUID();
        String timeouts = "redisson_delay_queue_timeout:{" + list + "}";
        String pending = "redisson_delay_queue:{" + list + "}";
        String prefix = TestRedis.uniquePrefix();
        try (ConfigurableApplicationContext app = TestApps.run(prefix, List.of(BridgeHandlers.class),
                "test.queue=" + list, "delay.queues." + list + ".redisson-delayed-queue=" + list,
                "delay.queues." + list + ".redisson-codec=string")) {
            RedissonClient client = app.getBean(RedissonClient.class);
            long now = System.currentTimeMillis();
            long tomorrow = now + Duration.ofDays(1).toMillis();
            // in offer order: ids 0..149,999, 1,000,000.., 150,000..299,999, 2,000,000..; all due tomorrow at first
            offer(client, timeouts, pending, tomorrow, 0, LATER / 2 - 1);
            offer(client, timeouts, pending, tomorrow + 1, 1_000_000, 1_000_000 + OVERDUE - 1);
            offer(client, timeouts, pending, tomorrow, LATER / 2, LATER - 1);
            offer(client, timeouts, pending, tomorrow + 2, 2_000_000, 2_000_000 + OVERDUE - 1);
            redis("CONFIG", "SET", "slowlog-log-slower-than", "1000");
            redis("SLOWLOG", "RESET");
            // then the 1,000,000s and 2,000,000s are found overdue, Redisson's transfer not told (no wake
            // message): the adopter moves them once they are 5 s late
            client.getScript(StringCodec.INSTANCE).eval(RScript.Mode.READ_WRITE, """
                    for _, v in ipairs(redis.call('zrangebyscore', KEYS[1], ARGV[1], ARGV[2])) do
                      redis.call('zadd', KEYS[1], ARGV[3], v)
                    end
                    return 1
                    """, RScript.ReturnType.LONG, List.of(timeouts), Long.toString(tomorrow + 1),
                    Long.toString(tomorrow + 2), Long.toString(now - 20_000));

            Closed closed = app.getBean(Closed.class);
            List<Long> overdue = LongStream.range(0, OVERDUE).flatMap(i -> LongStream.of(1_000_000 + i, 2_000_000 + i))
                    .boxed().toList();
            await().atMost(Duration.ofSeconds(90)).until(() -> closed.handledAt.keySet().containsAll(overdue));
            long slowestMicros = slowestScriptMicros(prefix);

            assertThat(closed.twice).isEmpty();
            assertThat(closed.handledAt).hasSize(2 * OVERDUE);
            assertThat(client.getScoredSortedSet(timeouts, StringCodec.INSTANCE).size()).isEqualTo(LATER);
            assertThat(client.getList(pending, StringCodec.INSTANCE).size()).isEqualTo(LATER);
            System.out.println("[deep overdue] " + 2 * OVERDUE + " overdue elements among " + LATER
                    + " pending: longest script in Redis " + slowestMicros + " us (SLOWLOG)");
            assertThat(slowestMicros).as("the longest script call, in microseconds").isLessThan(100_000);
        }
    }

    private static void offer(RedissonClient client, String timeouts, String pending, long dueAt, long from, long to) {
        for (long start = from; start <= to; start += 10_000) {
            client.getScript(StringCodec.INSTANCE).eval(RScript.Mode.READ_WRITE, OFFER_WITHOUT_WAKE, RScript.ReturnType.LONG,
                    List.of(timeouts, pending), Long.toString(dueAt), Long.toString(start),
                    Long.toString(Math.min(to, start + 9_999)));
        }
    }

    private static Object redis(String... command) {
        try (RespConnection redis = new RespConnection(TestRedis.host(), TestRedis.port())) {
            return redis.call(command);
        }
    }

    /**
     * The longest call of the bridge's scripts SLOWLOG kept (those over 1 ms; 0 when none), in
     * microseconds: {@code bridge-adopt.lua} names the queue's keys, {@code bridge-peek.lua} says
     * what it reads. Redisson's own transfer script, which runs when its subscription is (re)made,
     * removes elements from the middle of the pending list itself and is not the starter's.
     */
    private static long slowestScriptMicros(String prefix) {
        long slowest = 0;
        for (Object entry : (List<?>) redis("SLOWLOG", "GET", "1000")) {
            List<?> fields = (List<?>) entry;
            List<String> args = ((List<?>) fields.get(3)).stream().map(String::valueOf).toList();
            boolean ours = args.size() > 3 && args.get(0).toLowerCase(Locale.ROOT).startsWith("eval")
                    && args.stream().anyMatch(arg -> arg.startsWith(prefix) || List.of("due", "target", "pending").contains(arg));
            System.out.println("[deep overdue] SLOWLOG " + fields.get(2) + " us " + (ours ? "(the bridge's) " : "")
                    + args.subList(0, Math.min(args.size(), 6)));
            if (ours) {
                slowest = Math.max(slowest, (Long) fields.get(2));
            }
        }
        redis("CONFIG", "SET", "slowlog-log-slower-than", "10000");
        return slowest;
    }
}
