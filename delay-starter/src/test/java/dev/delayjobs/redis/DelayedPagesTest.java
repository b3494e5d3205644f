package dev.delayjobs.redis;

import static dev.delayjobs.test.ClaimRequests.request;
import static dev.delayjobs.test.TestPartitions.whole;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.IntStream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RScript.Mode;
import org.redisson.api.RScript.ReturnType;
import org.redisson.api.RScoredSortedSet;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.client.protocol.ScoredEntry;

import dev.delayjobs.JobInfo;
import dev.delayjobs.JobState;
import dev.delayjobs.store.StoredJob;
import dev.delayjobs.test.TestRedis;

/**
 * The default group's delayed jobs wait in pages of about 100 (docs/architecture.md#delayed-pages,
 * _delayed.lua): listpack zsets over disjoint ranges of due times, each marked in the delayed zset
 * with its earliest job. Jobs are found, cancelled, rescheduled and retried by the due time of
 * their record, move in due order, are counted exactly, and leave no page, index entry or mark.
 */
class DelayedPagesTest {

    static final RedissonClient redisson = TestRedis.sharedClient();
    /** Far enough ahead that nothing falls due during a test. */
    static final long HOUR = 3_600_000;

    RedisJobStore store;
    QueueKeys k;
    long base;

    @BeforeEach
    void newPrefix() {
        String prefix = TestRedis.uniquePrefix();
        store = new RedisJobStore(redisson, prefix);
        k = new QueueKeys(prefix, "q");
        base = store.transfer(whole("q"), 1).serverNow() + HOUR;
    }

    @Test
    void jobsDueAFixedDelayAfterNowFillOnePageAfterAnother() {
        for (int i = 0; i < 1_000; i += 10) {
            publishAt(IntStream.range(i, i + 10).mapToObj(j -> job("j" + j, base + j)).toList());
        }

        List<Page> pages = pages();
        assertThat(pages).as("ten full pages").hasSize(10).allSatisfy(p -> assertThat(p.ids()).hasSize(100));
        assertThat(pages.get(0).ids()).as("the first page: the earliest jobs, in order")
                .containsExactlyElementsOf(ids("j", 0, 100));
        assertLayoutHolds(1_000);
        assertThat(store.stats(whole("q")).nextDueAt()).isEqualTo(base);
    }

    @Test
    void jobsPublishedOneByOneAFewOutOfOrderFillPagesAndTheLateOnesWaitPlain() {
        // as single publishes from several threads: due a fixed delay after now, give or take a few ms
        Random random = new Random(7);
        for (int i = 0; i < 1_000; i++) {
            publishAt(List.of(job("s" + i, base + i * 2 + random.nextInt(8))));
        }

        assertLayoutHolds(1_000);
        List<Page> pages = pages();
        assertThat(pages).as("pages left behind keep 90 and the few that come late").hasSizeLessThanOrEqualTo(12);
        long paged = pages.stream().mapToLong(p -> p.ids().size()).sum();
        assertThat(paged).as("a job due before the last page's bound waits as a plain member").isBetween(500L, 999L);
        for (int i = 0; i < 1_000; i += 7) {
            assertThat(store.find(whole("q"), "s" + i).orElseThrow().state()).isEqualTo(JobState.DELAYED);
        }
    }

    @Test
    void jobsInRandomOrderWaitPlainBeforeTheLastPageAndStayFindable() {
        Random random = new Random(26);
        List<NewJob> jobs = new ArrayList<>();
        List<Long> dues = new ArrayList<>();
        for (int i = 0; i < 3_000; i++) {
            long due = base + random.nextInt(1_000_000);
            dues.add(due);
            jobs.add(job("r" + i, due));
        }
        for (int i = 0; i < jobs.size(); i += 50) {
            publishAt(jobs.subList(i, i + 50));
        }

        assertLayoutHolds(3_000);
        List<Page> pages = pages();
        long paged = pages.stream().mapToLong(p -> p.ids().size()).sum();
        assertThat(paged).as("pages take only the jobs after the last one's bound: few, when due times come in no order")
                .isLessThan(1_000);
        assertThat(pages).allSatisfy(p -> assertThat(p.ids()).hasSizeBetween(1, 110));
        for (int i = 0; i < 3_000; i += 13) {
            JobInfo found = store.find(whole("q"), "r" + i).orElseThrow();
            assertThat(found.state()).isEqualTo(JobState.DELAYED);
            assertThat(found.dueAt().toEpochMilli()).isEqualTo(dues.get(i));
        }
        for (int i = 0; i < 3_000; i += 2) {
            assertThat(store.cancel(whole("q"), "r" + i)).isTrue();
        }
        assertLayoutHolds(1_500);
        DelayedTime.pass(redisson, k, HOUR + 1_000_000);
        drain(250);
        List<String> expected = IntStream.range(0, 3_000).filter(i -> i % 2 == 1).boxed()
                .sorted(java.util.Comparator.comparing((Integer i) -> dues.get(i))).map(i -> "r" + i).toList();
        assertThat(ready()).as("plain and paged jobs leave in due order").hasSize(1_500);
        List<Long> readyDues = ready().stream().map(id -> dues.get(Integer.parseInt(id.substring(1)))).toList();
        assertThat(readyDues).isSorted();
        assertThat(ready()).containsExactlyInAnyOrderElementsOf(expected);
        assertNothingLeft();
    }

    @Test
    void jobsDueAtOneInstantStayOnOnePageAcrossSplits() {
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < 80; i++) {
            jobs.add(job("before" + i, base + i));
        }
        publishAt(jobs);
        // 150 jobs due at one instant inside the page's range, in three calls: the page splits, never between them
        for (int call = 0; call < 3; call++) {
            int from = call * 50;
            publishAt(IntStream.range(from, from + 50).mapToObj(j -> job("same" + j, base + 40)).toList());
        }
        publishAt(List.of(job("after", base + 41)));

        assertLayoutHolds(231);
        List<Page> holding = pages().stream().filter(p -> p.ids().stream().anyMatch(id -> id.startsWith("same"))).toList();
        assertThat(holding).as("the instant's jobs on one page (those after its bound was passed wait plain)").hasSize(1);
        assertThat(holding.get(0).ids()).contains("same0");
        for (int i = 0; i < 150; i++) {
            assertThat(store.find(whole("q"), "same" + i).orElseThrow().state()).isEqualTo(JobState.DELAYED);
        }
        assertThat(store.cancel(whole("q"), "same77")).isTrue();
        assertThat(store.find(whole("q"), "same78").orElseThrow().state()).isEqualTo(JobState.DELAYED);
        assertLayoutHolds(230);
    }

    @Test
    void aFloodAtOneInstantIsOneBigPageThatStillMovesInOrder() {
        List<NewJob> flood = IntStream.range(0, 2_500).mapToObj(i -> job(String.format("f%05d", i), base)).toList();
        for (int i = 0; i < flood.size(); i += 1_000) {
            publishAt(flood.subList(i, Math.min(i + 1_000, flood.size())));
        }
        publishAt(List.of(job("later", base + 1), job("earlier", base - 1)));

        assertLayoutHolds(2_502);
        assertThat(pages()).extracting(p -> p.ids().size()).as("the job before the flood's page waits plain")
                .containsExactly(2_500, 1);
        DelayedTime.pass(redisson, k, HOUR + 10);
        drain(1_000);

        List<String> expected = new ArrayList<>(List.of("earlier"));
        flood.forEach(j -> expected.add(j.id()));
        expected.add("later");
        assertThat(ready()).containsExactlyElementsOf(expected);
        assertNothingLeft();
    }

    @Test
    void aBigPageOfOneInstantSplitsOffTheJobsAfterItWhenOthersJoinIt() {
        publishAt(List.of(job("low", base), job("high", base + 100)));
        publishAt(IntStream.range(0, 600).mapToObj(i -> job(String.format("f%04d", i), base + 50)).toList());
        assertThat(pages()).extracting(p -> p.ids().size()).as("split where the due time changes").containsExactly(1, 600, 1);

        List<NewJob> call = new ArrayList<>(IntStream.range(600, 1_200).mapToObj(i -> job(String.format("f%04d", i), base + 50)).toList());
        call.add(job("between", base + 60));
        publishAt(call);

        assertLayoutHolds(1_203);
        assertThat(pages()).extracting(p -> p.ids().size()).as("jobs due before the last page's bound wait plain")
                .containsExactly(1, 600, 1);
        assertThat(store.find(whole("q"), "between").orElseThrow().state()).isEqualTo(JobState.DELAYED);
        assertThat(store.find(whole("q"), "f0900").orElseThrow().dueAt().toEpochMilli()).isEqualTo(base + 50);
    }

    @Test
    void pagedJobsAreCancelledRescheduledReplacedAndRetriedExactly() {
        publishAt(IntStream.range(0, 300).mapToObj(i -> job("p" + i, base + i * 10)).toList());

        assertThat(store.cancel(whole("q"), "p150")).isTrue();
        assertThat(store.find(whole("q"), "p150")).isEmpty();
        assertThat(store.cancel(whole("q"), "p150")).isFalse();

        assertThat(store.reschedule(whole("q"), "p10", false, base + 5_000)).isTrue();
        assertThat(store.find(whole("q"), "p10").orElseThrow().dueAt().toEpochMilli()).isEqualTo(base + 5_000);
        assertThat(store.find(whole("q"), "p10").orElseThrow().state()).isEqualTo(JobState.DELAYED);
        assertThat(store.reschedule(whole("q"), "p0", false, base - 10)).as("to an earlier time than every page").isTrue();
        assertThat(store.stats(whole("q")).nextDueAt()).isEqualTo(base - 10);

        store.publish(whole("q"), List.of(new NewJob("p20", false, base + 2_995, true, "{\"v\":2}")));
        JobInfo replaced = store.find(whole("q"), "p20").orElseThrow();
        assertThat(replaced.dueAt().toEpochMilli()).isEqualTo(base + 2_995);
        assertThat(replaced.payloadJson()).isEqualTo("{\"v\":2}");
        assertLayoutHolds(299);

        assertThat(store.reschedule(whole("q"), "p30", true, 0)).as("made due").isTrue();
        assertThat(store.find(whole("q"), "p30").orElseThrow().state()).isEqualTo(JobState.READY);
        assertLayoutHolds(298);
        StoredJob claimed = store.partition(whole("q")).claim(request("i1", 1, Duration.ofSeconds(30), 1)).jobs().get(0);
        assertThat(claimed.id()).isEqualTo("p30");
        assertThat(store.partition(whole("q")).retry("i1", claimed, "failed", Duration.ofMillis(HOUR + 1_505))).isTrue();
        assertThat(store.find(whole("q"), "p30").orElseThrow().state()).isEqualTo(JobState.DELAYED);
        assertLayoutHolds(299);
        assertThat(store.cancel(whole("q"), "p30")).isTrue();
        assertLayoutHolds(298);

        for (int i = 0; i < 300; i++) {
            store.cancel(whole("q"), "p" + i);
        }
        assertNothingLeft();
    }

    @Test
    void aReadyJobDelayedAgainIsNotClaimedFromTheReadyList() {
        store.publish(whole("q"), List.of(new NewJob("x", true, 0, false, "{}")));
        publishAt(IntStream.range(0, 150).mapToObj(i -> job("p" + i, base + i)).toList());
        assertThat(store.reschedule(whole("q"), "x", false, base + 75)).isTrue();

        assertThat(store.partition(whole("q")).claim(request("i1", 5, Duration.ofSeconds(30), 1)).jobs())
                .as("x's id is still in ready, but x is delayed again").isEmpty();
        assertThat(store.find(whole("q"), "x").orElseThrow().state()).isEqualTo(JobState.DELAYED);
        assertLayoutHolds(151);
    }

    @Test
    void transferMovesPagesInDueOrderBesideAGroupAndLeavesNothingBehind() {
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < 700; i++) {
            jobs.add(job(String.format("d%04d", i), base + i * 3));
            if (i < 300) {
                jobs.add(job(String.format("a%04d", i), base + i * 7).inGroup("a"));
            }
        }
        for (int i = 0; i < jobs.size(); i += 100) {
            store.publish(whole("q"), jobs.subList(i, Math.min(i + 100, jobs.size())));
        }
        assertThat(store.stats(whole("q")).delayed()).isEqualTo(1_000);
        DelayedTime.pass(redisson, k, HOUR + 10_000);

        Transfer first = store.transfer(whole("q"), 250);
        assertThat(ready()).as("the default group, oldest first, takes what the step gives it")
                .containsExactlyElementsOf(padded("d", 0, 250));
        assertThat(first.moved()).as("and the group met its one job").isEqualTo(251);
        drain(250);

        assertThat(ready()).containsExactlyElementsOf(padded("d", 0, 700));
        assertThat(redisson.<String>getList(k.ready() + ":a", StringCodec.INSTANCE).readAll())
                .containsExactlyElementsOf(padded("a", 0, 300));
        assertNothingLeft();
    }

    @Test
    void jobsDueWithinAMinuteWaitAsPlainIdsAndLeaveInDueOrderWithPagedOnes() {
        publishAt(IntStream.range(0, 150).mapToObj(i -> job(String.format("x%04d", 2 * i), base + 2 * i)).toList());
        DelayedTime.pass(redisson, k, HOUR - 30_000);
        // due between the paged ones, 30 s from the first clock read: near, so plain members of delayed
        long near = base - HOUR + 30_000;
        publishAt(IntStream.range(0, 150).mapToObj(i -> job(String.format("x%04d", 2 * i + 1), near + 2 * i + 1)).toList());
        assertThat(redisson.getScoredSortedSet(k.delayed(), StringCodec.INSTANCE).contains("x0001")).isTrue();
        assertThat(pages()).flatExtracting(Page::ids).hasSize(150).doesNotContain("x0001");
        assertThat(store.stats(whole("q")).delayed()).isEqualTo(300);
        assertThat(store.find(whole("q"), "x0001").orElseThrow().state()).isEqualTo(JobState.DELAYED);
        assertThat(store.cancel(whole("q"), "x0003")).isTrue();

        DelayedTime.pass(redisson, k, 40_000);
        drain(50);

        List<String> expected = new ArrayList<>(padded("x", 0, 300));
        expected.remove("x0003");
        assertThat(ready()).as("plain and paged jobs merged in due order").containsExactlyElementsOf(expected);
        assertNothingLeft();
    }

    @Test
    void tenThousandDelayedJobsTakeAFractionOfTheMemoryOfOneZset() {
        Map<String, Double> flat = new java.util.LinkedHashMap<>();
        for (int i = 0; i < 10_000; i += 100) {
            List<NewJob> call = new ArrayList<>();
            for (int j = i; j < i + 100; j++) {
                String id = String.format("job-%08d", j);
                call.add(job(id, base + j * 3L));
                flat.put(id, (double) (base + j * 3L));
            }
            publishAt(call);
        }
        assertLayoutHolds(10_000);

        long paged = memory(k.delayed()) + memory(k.delayedPages());
        for (Page page : pages()) {
            assertThat(encoding(page.key())).as(page.key()).isIn("listpack", "ziplist");
            paged += memory(page.key());
        }
        RScoredSortedSet<String> one = redisson.getScoredSortedSet(k.delayed() + "-flat", StringCodec.INSTANCE);
        one.addAll(flat);
        long single = memory(one.getName());
        one.delete();
        assertThat(paged).as("pages, index and marks against one zset of the same jobs (%d bytes)", single)
                .isLessThan(single * 2 / 5);
    }

    // --- helpers ----------------------------------------------------------------------------------

    /** A page: its number, the lower bound of its range, its jobs in due order with their due times. */
    record Page(String number, long bound, String key, List<String> ids, List<Long> dues) {
    }

    private List<Page> pages() {
        List<Page> pages = new ArrayList<>();
        for (ScoredEntry<String> entry : redisson.<String>getScoredSortedSet(k.delayedPages(), StringCodec.INSTANCE).entryRange(0, -1)) {
            String key = k.delayed() + ":\u0002" + entry.getValue();
            Collection<ScoredEntry<String>> jobs = redisson.<String>getScoredSortedSet(key, StringCodec.INSTANCE).entryRange(0, -1);
            pages.add(new Page(entry.getValue(), entry.getScore().longValue(), key,
                    jobs.stream().map(ScoredEntry::getValue).toList(), jobs.stream().map(e -> e.getScore().longValue()).toList()));
        }
        return pages;
    }

    /**
     * The layout's invariants: pages cover disjoint ranges (every job at or after its page's bound and
     * before the next page's), none is empty, each is marked with its earliest job, the delayed zset
     * holds nothing else but plain jobs, every job's record is due when its page or its score says,
     * and the counts add up.
     */
    private void assertLayoutHolds(long jobs) {
        List<Page> pages = pages();
        Map<String, Double> marks = new java.util.HashMap<>();
        redisson.<String>getScoredSortedSet(k.delayed(), StringCodec.INSTANCE).entryRange(0, -1)
                .forEach(e -> marks.put(e.getValue(), e.getScore()));
        long paged = 0;
        for (int i = 0; i < pages.size(); i++) {
            Page page = pages.get(i);
            assertThat(page.ids()).as("page %s", page.number()).isNotEmpty();
            long next = i + 1 < pages.size() ? pages.get(i + 1).bound() : Long.MAX_VALUE;
            assertThat(page.dues()).as("page %s within [%d, %d)", page.number(), page.bound(), next)
                    .allSatisfy(due -> assertThat(due).isGreaterThanOrEqualTo(page.bound()).isLessThan(next));
            assertThat(marks.get("\u0002" + page.number())).as("mark of page %s", page.number())
                    .isEqualTo(page.dues().get(0).doubleValue());
            for (int j = 0; j < page.ids().size(); j++) {
                assertThat(recordDue(page.ids().get(j))).as(page.ids().get(j)).isEqualTo(page.dues().get(j));
            }
            paged += page.ids().size();
        }
        long groupMarks = marks.keySet().stream().filter(m -> m.startsWith("\u0001")).count();
        List<String> plain = marks.keySet().stream().filter(m -> m.charAt(0) > '\u0002').toList();
        for (String id : plain) {
            assertThat(recordDue(id)).as("plain %s", id).isEqualTo(marks.get(id).longValue());
        }
        assertThat(marks).as("a mark per page and per group, and the plain jobs")
                .hasSize(pages.size() + (int) groupMarks + plain.size());
        assertThat(store.stats(whole("q")).delayed()).isEqualTo(jobs);
        Map<String, String> counts = redisson.<String, String>getMap(k.delayedCounts(), StringCodec.INSTANCE).readAllMap();
        assertThat(Long.parseLong(counts.getOrDefault("marks", "0"))).isEqualTo(marks.size() - plain.size());
        if (groupMarks == 0) {
            assertThat(paged + plain.size()).isEqualTo(jobs);
        }
    }

    private void assertNothingLeft() {
        assertThat(store.stats(whole("q")).delayed()).isZero();
        assertThat(redisson.getKeys().countExists(k.delayed(), k.delayedPages())).as("no mark, no index").isZero();
        assertThat(redisson.getKeys().getKeysStream(org.redisson.api.options.KeysScanOptions.defaults()
                .pattern(k.delayed() + ":*")).toList()).as("no page, no group zset").isEmpty();
        assertThat(redisson.<String, String>getMap(k.delayedCounts(), StringCodec.INSTANCE).readAllMap())
                .containsEntry("jobs", "0").containsEntry("marks", "0");
    }

    private long recordDue(String id) {
        String record = redisson.<String, String>getMap(k.jobs(), StringCodec.INSTANCE).get(id);
        return Long.parseLong(record.split(",", 3)[1], 36);
    }

    private void drain(int batch) {
        int steps = 0;
        Transfer step;
        do {
            step = store.transfer(whole("q"), batch);
            steps++;
        }
        while (step.moreDue() && steps < 1_000);
    }

    private List<String> ready() {
        return redisson.<String>getList(k.ready(), StringCodec.INSTANCE).readAll();
    }

    private long memory(String key) {
        return redisson.getScript(StringCodec.INSTANCE).<Long>eval(Mode.READ_ONLY,
                "return redis.call('MEMORY', 'USAGE', KEYS[1], 'SAMPLES', '0')", ReturnType.LONG, List.of(key));
    }

    private String encoding(String key) {
        return redisson.getScript(StringCodec.INSTANCE).eval(Mode.READ_ONLY,
                "return redis.call('OBJECT', 'ENCODING', KEYS[1])", ReturnType.VALUE, List.of(key));
    }

    private void publishAt(List<NewJob> jobs) {
        store.publish(whole("q"), jobs);
    }

    private static NewJob job(String id, long dueAt) {
        return new NewJob(id, false, dueAt, false, "{}");
    }

    private static List<String> ids(String prefix, int from, int to) {
        return IntStream.range(from, to).mapToObj(i -> prefix + i).toList();
    }

    /** The ids {@code prefix} then a four-digit number, which sort as their numbers. */
    private static List<String> padded(String prefix, int from, int to) {
        return IntStream.range(from, to).mapToObj(i -> String.format("%s%04d", prefix, i)).toList();
    }
}
