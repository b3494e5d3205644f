package dev.delayjobs.redis;

import static dev.delayjobs.test.ClaimRequests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.delayjobs.test.TestPartitions.whole;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RScript;
import org.redisson.api.RScript.Mode;
import org.redisson.api.RScript.ReturnType;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import dev.delayjobs.store.StoredJob;
import dev.delayjobs.store.Claim;
import dev.delayjobs.RateLimit;
import dev.delayjobs.test.TestRedis;

/**
 * Redisson resends a script whose reply timed out, and after a stall every copy runs: the copies
 * of a publish, a claim or a cancel (same request id) act once, and answer what the first answered.
 */
class ResentScriptTest {

    static final RedissonClient redisson = TestRedis.sharedClient();
    RScript script;
    QueueKeys k;
    RedisJobStore store;

    @BeforeEach
    void newPrefix() {
        String prefix = TestRedis.uniquePrefix();
        k = new QueueKeys(prefix, "q");
        store = new RedisJobStore(redisson, prefix);
        script = redisson.getScript(StringCodec.INSTANCE);
    }

    @Test
    void aResentPublishStoresOneJobAndAnswersCreatedAgain() {
        List<Object> keys = k.of(k.jobs(), k.delayed(), k.ready(), k.stats(), k.dead(), k.errors(), k.request("p:test:1"),
                k.control(), k.successors(), k.claims(), k.groups(), k.groupsReady(), k.groupHeld());
        Object[] args = { k.wakeChannel(), "1", "1", "gen-id-1", "d0", "1aao" /* 60000 ms, base 36 */, "\"x\"", "p-1" };
        List<Object> first = LuaScript.load(Script.PUBLISH).run(script, Mode.READ_WRITE, ReturnType.LIST, keys, args);
        List<Object> copy = LuaScript.load(Script.PUBLISH).run(script, Mode.READ_WRITE, ReturnType.LIST, keys, args);

        assertThat(first).containsExactly(1L);
        assertThat(copy).as("not KEPT_EXISTING, which the publisher reads as an id clash").containsExactly(1L);
        assertThat(store.stats(whole("q")).delayed()).isEqualTo(1);
    }

    @Test
    void aResentPublishThatMetAHeldJobAnswersQueuedAgainNotKept() {
        store.publish(whole("q"), List.of(new NewJob("k", true, 0, false, "\"old\"")));
        store.partition(whole("q")).claim(request("i1", 1, Duration.ofSeconds(10), 1));
        List<Object> keys = k.of(k.jobs(), k.delayed(), k.ready(), k.stats(), k.dead(), k.errors(), k.request("p:test:1"),
                k.control(), k.successors(), k.claims(), k.groups(), k.groupsReady(), k.groupHeld());
        Object[] args = { k.wakeChannel(), "1", "1", "k", "d0", "0", "\"new\"", "p-2" };
        List<Object> first = LuaScript.load(Script.PUBLISH).run(script, Mode.READ_WRITE, ReturnType.LIST, keys, args);
        List<Object> copy = LuaScript.load(Script.PUBLISH).run(script, Mode.READ_WRITE, ReturnType.LIST, keys, args);

        assertThat(first).as("stored as the running job's successor").containsExactly(3L);
        assertThat(copy).as("not KEPT_EXISTING, which a second publish onto the successor would answer").containsExactly(3L);
        assertThat(store.find(whole("q"), "k").orElseThrow().successor().payloadJson()).isEqualTo("\"new\"");
    }

    @Test
    void aResentClaimTakesNoMoreJobsAndReturnsTheSameOnes() {
        store.publish(whole("q"), List.of(new NewJob("a", true, 0, false, "1"), new NewJob("b", true, 0, false, "2"),
                new NewJob("c", true, 0, false, "3")));
        List<Object> keys = k.of(k.ready(), k.active("i1"), k.jobs(), k.delayed(), k.dead(), k.errors(), k.stats(),
                k.instances(), k.claimFences(), k.request("c:test:1"), k.control(), k.rateLog(), k.claims(), k.groups(), k.groupsReady(), k.groupHeld());
        // under a rate limit of 3 a minute, which the copy must not spend twice
        Object[] args = { "2", "i1", "10000", "1", "100000", "3", "60000", "0", "1", "2", "0", "c-1" };
        List<Object> first = LuaScript.load(Script.CLAIM).run(script, Mode.READ_WRITE, ReturnType.LIST, keys, args);
        List<Object> copy = LuaScript.load(Script.CLAIM).run(script, Mode.READ_WRITE, ReturnType.LIST, keys, args);

        assertThat(first.subList(3, first.size())).as("two ids, records, claim states and groups").hasSize(8);
        assertThat(copy).isEqualTo(first);
        assertThat(redisson.getList(k.active("i1"), StringCodec.INSTANCE).size()).as("two held, not four").isEqualTo(2);
        assertThat(store.stats(whole("q")).ready()).isEqualTo(1);
        assertThat(store.partition(whole("q")).claim(request("i2", 5, Duration.ofSeconds(10), 1, RateLimit.parse("3/1m"))).jobs())
                .as("the third permit is left").hasSize(1);
    }

    @Test
    void aResentHandBackRaisesTheFenceOnlyOnce() {
        store.publish(whole("q"), List.of(new NewJob("a", true, 0, false, "1")));
        long epoch = store.partition(whole("q")).releaseAllBut("i1", List.of(), 1).fence();
        // the copy Redisson resent runs too, after the first run's reply was kept
        store.partition(whole("q")).releaseAllBut("i1", List.of(), 1);

        Claim claim = store.partition(whole("q")).claim(request("i1", 1, Duration.ofSeconds(10), epoch));
        assertThat(claim.fenced()).as("the epoch the reply gave still claims").isFalse();
        assertThat(claim.jobs()).extracting(StoredJob::id).containsExactly("a");
    }

    @Test
    void aResentCancelAnswersThatItCancelled() {
        store.publish(whole("q"), List.of(new NewJob("a", true, 60_000, false, "1")));
        List<Object> keys = k.of(k.jobs(), k.delayed(), k.dead(), k.errors(), k.request("p:test:1"), k.successors(), k.claims(), k.groups());
        Long first = LuaScript.load(Script.CANCEL).run(script, Mode.READ_WRITE, ReturnType.LONG, keys, "a", "x-1");
        Long copy = LuaScript.load(Script.CANCEL).run(script, Mode.READ_WRITE, ReturnType.LONG, keys, "a", "x-1");

        assertThat(first).isEqualTo(1L);
        assertThat(copy).isEqualTo(1L);
        assertThat(store.find(whole("q"), "a")).isEmpty();
    }
}
