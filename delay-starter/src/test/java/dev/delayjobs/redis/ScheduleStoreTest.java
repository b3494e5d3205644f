package dev.delayjobs.redis;

import static dev.delayjobs.test.TestPartitions.whole;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import dev.delayjobs.JobState;
import dev.delayjobs.redis.ScheduleStore.Declared;
import dev.delayjobs.redis.ScheduleStore.Step;
import dev.delayjobs.redis.ScheduleStore.Stepped;
import dev.delayjobs.test.TestRedis;

/** The schedule scripts on a real Redis: declaration, and tick.lua as a compare-and-set. */
class ScheduleStoreTest {

    static final RedissonClient redisson = TestRedis.sharedClient();
    String prefix;
    ScheduleStore schedules;
    RedisJobStore jobs;

    @BeforeEach
    void newPrefix() {
        prefix = TestRedis.uniquePrefix();
        schedules = new ScheduleStore(redisson, prefix);
        jobs = new RedisJobStore(redisson, prefix);
    }

    @Test
    void sameDeclarationTwiceIsOneScheduleAndAnotherSpecReplacesThePendingTick() {
        long now = System.currentTimeMillis();
        assertThat(schedules.declare(whole("q"), "s", "r:1000;m:FIRE_ONE", "{}", now + 1000, false)).isEqualTo(Declared.CREATED);
        assertThat(schedules.declare(whole("q"), "s", "r:1000;m:FIRE_ONE", "{}", now + 1500, false)).isEqualTo(Declared.UNCHANGED);
        assertThat(schedules.due(whole("q"), 60_000, 10).schedules()).singleElement()
                .satisfies(d -> assertThat(d.tick()).as("the first declaration's tick").isEqualTo(now + 1000));

        assertThat(schedules.declare(whole("q"), "s", "r:2000;m:FIRE_ONE", "{}", now + 2000, false)).isEqualTo(Declared.REPLACED);
        assertThat(schedules.due(whole("q"), 60_000, 10).schedules()).singleElement()
                .satisfies(d -> {
                    assertThat(d.tick()).isEqualTo(now + 2000);
                    assertThat(d.spec()).isEqualTo("r:2000;m:FIRE_ONE");
                    assertThat(d.payload()).isEqualTo("{}");
                });
    }

    @Test
    void twoInstancesSteppingTheSameTickMakeOneJobAndTheNextTickIsStoredWithIt() {
        long tick = System.currentTimeMillis() + 60_000;
        schedules.declare(whole("q"), "s", "r:1000;m:FIRE_ONE", "{\"a\":1}", tick, false);
        Step step = new Step("s", "r:1000;m:FIRE_ONE", tick, true, tick, tick + 1000);

        assertThat(schedules.tick(whole("q"), List.of(step))).containsExactly(Stepped.PUBLISHED);
        assertThat(schedules.tick(whole("q"), List.of(step))).as("the second instance, same read").containsExactly(Stepped.MOVED_ON);

        assertThat(jobs.find(whole("q"), "s@" + tick)).hasValueSatisfying(j -> {
            assertThat(j.state()).isEqualTo(JobState.DELAYED);
            assertThat(j.dueAt().toEpochMilli()).isEqualTo(tick);
            assertThat(j.payloadJson()).isEqualTo("{\"a\":1}");
        });
        assertThat(redisson.getMap(new QueueKeys(prefix, whole("q")).jobs(), StringCodec.INSTANCE).size()).isEqualTo(1);
        assertThat(schedules.due(whole("q"), 120_000, 10).schedules()).singleElement()
                .satisfies(d -> assertThat(d.tick()).isEqualTo(tick + 1000));
    }

    @Test
    void aStepReadBeforeTheSpecChangedDoesNothing() {
        long tick = System.currentTimeMillis() + 60_000;
        schedules.declare(whole("q"), "s", "r:1000;m:FIRE_ONE", "{}", tick, false);
        schedules.declare(whole("q"), "s", "r:5000;m:FIRE_ONE", "{}", tick, false);

        assertThat(schedules.tick(whole("q"), List.of(new Step("s", "r:1000;m:FIRE_ONE", tick, true, tick, tick + 1000))))
                .containsExactly(Stepped.MOVED_ON);
        assertThat(jobs.find(whole("q"), "s@" + tick)).isEmpty();
    }

    @Test
    void aSkippedMisfireMovesTheTickWithoutAJobAndADueTickIsReadyAtOnce() {
        long past = System.currentTimeMillis() - 60_000;
        schedules.declare(whole("q"), "skip", "r:1000;m:FIRE_NONE", "{}", past, false);
        schedules.declare(whole("q"), "one", "r:1000;m:FIRE_ONE", "{}", past, false);
        long next = past + 61_000;

        assertThat(schedules.tick(whole("q"), List.of(new Step("skip", "r:1000;m:FIRE_NONE", past, false, past, next),
                new Step("one", "r:1000;m:FIRE_ONE", past, true, past, next)))).containsExactly(Stepped.SKIPPED, Stepped.PUBLISHED);

        assertThat(jobs.find(whole("q"), "skip@" + past)).isEmpty();
        assertThat(jobs.find(whole("q"), "one@" + past)).hasValueSatisfying(j -> assertThat(j.state()).isEqualTo(JobState.READY));
    }

    @Test
    void aSkipTickWhosePreviousJobHasNotEndedIsSkippedRecordedAndTheNextTickStoredAndRunsOnceItEnded() {
        String spec = "r:1000;m:FIRE_ONE;o:SKIP";
        long t1 = System.currentTimeMillis() - 1000;
        schedules.declare(whole("q"), "s", spec, "{}", t1, false);
        assertThat(schedules.tick(whole("q"), List.of(new Step("s", spec, t1, true, t1, t1 + 1000, true))))
                .containsExactly(Stepped.PUBLISHED);

        assertThat(schedules.tick(whole("q"), List.of(new Step("s", spec, t1 + 1000, true, t1 + 1000, t1 + 2000, true))))
                .as("the job of t1 is READY, not ended").containsExactly(Stepped.OVERLAPPED);
        assertThat(jobs.find(whole("q"), "s@" + (t1 + 1000))).isEmpty();
        assertThat(schedules.due(whole("q"), 60_000, 10).schedules()).singleElement()
                .satisfies(d -> assertThat(d.tick()).isEqualTo(t1 + 2000));
        assertThat(schedules.page(whole("q"), "0", 10).schedules()).singleElement().satisfies(l -> {
            assertThat(l.outcome().outcome()).isEqualTo("skipped");
            assertThat(l.outcome().tick()).isEqualTo(t1 + 1000);
        });
        assertThat(redisson.getMap(new QueueKeys(prefix, whole("q")).stats(), StringCodec.INSTANCE).get("ticks-skipped"))
                .isEqualTo("1");

        assertThat(jobs.cancel(whole("q"), "s@" + t1)).isTrue();
        assertThat(schedules.tick(whole("q"), List.of(new Step("s", spec, t1 + 2000, true, t1 + 2000, t1 + 3000, true))))
                .as("the job of t1 ended").containsExactly(Stepped.PUBLISHED);
    }

    @Test
    void removedScheduleIsNoLongerDue() {
        schedules.declare(whole("q"), "s", "r:1000;m:FIRE_ONE", "{}", System.currentTimeMillis(), false);
        assertThat(schedules.remove(whole("q"), List.of("s", "absent"))).isEqualTo(1);
        assertThat(schedules.due(whole("q"), 60_000, 10).schedules()).isEmpty();
    }
}
