package dev.delayjobs.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static dev.delayjobs.test.TestPartitions.whole;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import dev.delayjobs.test.TestRedis;

/**
 * What publish.lua announces on the queue's wake channel: the due time of a call's earliest delayed
 * job when it beats the head of the delayed set, nothing otherwise. Messages of one channel arrive
 * in order, so a later announced publish shows that the ones before it announced nothing.
 */
class PublishWakeTest {

    static final RedissonClient redisson = TestRedis.sharedClient();

    RedisJobStore store;
    RTopic topic;
    int listener;
    final BlockingQueue<Long> heard = new LinkedBlockingQueue<>();

    @BeforeEach
    void subscribe() {
        String prefix = TestRedis.uniquePrefix();
        store = new RedisJobStore(redisson, prefix);
        topic = redisson.getTopic(new QueueKeys(prefix, "q").wakeChannel(), StringCodec.INSTANCE);
        listener = topic.addListener(String.class, (channel, message) -> heard.add(Long.parseLong(message)));
        await().atMost(Duration.ofSeconds(10)).until(() -> topic.countSubscribers() > 0);
    }

    @AfterEach
    void unsubscribe() {
        topic.removeListener(listener);
    }

    @Test
    void announcesOnlyADueTimeThatBeatsTheHead() throws InterruptedException {
        long now = System.currentTimeMillis();
        store.publish(whole("q"), List.of(new NewJob("first", false, now + 3_600_000, false, "1")));
        assertThat(next()).as("the first delayed job is the head").isEqualTo(now + 3_600_000);

        store.publish(whole("q"), List.of(new NewJob("later", false, now + 7_200_000, false, "2")));
        store.publish(whole("q"), List.of(new NewJob("due", true, 0, false, "3")));
        store.publish(whole("q"), List.of(new NewJob("earlier", false, now + 1_800_000, false, "4"),
                new NewJob("between", false, now + 2_000_000, false, "5")));
        assertThat(next()).as("a later job and a due one announce nothing; the earliest of a call does")
                .isEqualTo(now + 1_800_000);
    }

    @Test
    void aReplacedHeadIsNoLongerTheHeadToBeat() throws InterruptedException {
        long now = System.currentTimeMillis();
        store.publish(whole("q"), List.of(new NewJob("k", false, now + 1_000_000, false, "1"),
                new NewJob("other", false, now + 3_000_000, false, "2")));
        assertThat(next()).isEqualTo(now + 1_000_000);

        store.publish(whole("q"), List.of(new NewJob("k", false, now + 2_000_000, true, "3")));
        assertThat(next()).as("the replacement beats what is left once the job it replaces has gone")
                .isEqualTo(now + 2_000_000);
    }

    private long next() throws InterruptedException {
        Long due = heard.poll(10, TimeUnit.SECONDS);
        assertThat(due).as("a wake message within 10 s").isNotNull();
        return due;
    }
}
