package dev.delayjobs.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static dev.delayjobs.test.TestPartitions.whole;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import dev.delayjobs.test.TestRedis;

/**
 * dead-page.lua reads at most one page per call, however deep the page: a page longer than 1000 is
 * refused in Redis, and pages by cursor go through a dead set of many jobs, many of which died in
 * the same millisecond, each once and in order, also when the cursor's job left the set. Each job
 * shows the payload version of its record, read within a byte budget per call.
 */
class DeadPageTest {

    static final RedissonClient redisson = TestRedis.sharedClient();

    String prefix;
    RedisJobStore store;
    QueueKeys k;

    @BeforeEach
    void setUp() {
        prefix = TestRedis.uniquePrefix();
        store = new RedisJobStore(redisson, prefix);
        k = new QueueKeys(prefix, "q");
    }

    @Test
    void aPageLongerThanTheLimitIsRefusedByTheScriptItself() {
        deadJobs(1200, 40);
        RScript script = redisson.getScript(StringCodec.INSTANCE);
        LuaScript deadPage = LuaScript.load(Script.DEAD_PAGE);
        assertThatThrownBy(() -> deadPage.run(script, RScript.Mode.READ_WRITE, RScript.ReturnType.LIST,
                k.of(k.dead(), k.jobs(), k.errors(), k.claims()), "1001", "0", "", "", "0")).hasStackTraceContaining(
                        "PAGE count must be between 1 and 1000, was 1001");
        List<Object> most = deadPage.run(script, RScript.Mode.READ_WRITE, RScript.ReturnType.LIST,
                k.of(k.dead(), k.jobs(), k.errors(), k.claims()), "1000", "0", "", "", "0");
        assertThat(most).as("the total, then 5 values per job").hasSize(1 + 5 * 1000);
        assertThatThrownBy(() -> store.deadJobs().page(whole("q"), 0, 1001)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1 to 1000");
    }

    @Test
    void pagesByCursorReadEveryDeadJobOnceNewestFirstWhereverTheyStart() {
        List<DeadJob> all = deadJobs(3000, 25); // about 120 jobs per died-at millisecond
        List<DeadJob> read = new ArrayList<>();
        DeadJobs.Cursor after = null;
        for (int pages = 0; pages < 200; pages++) {
            DeadJobs.Page page = store.deadJobs().pageAfter(whole("q"), after, 47);
            assertThat(page.total()).isEqualTo(3000);
            assertThat(page.jobs()).hasSizeLessThanOrEqualTo(47);
            if (page.jobs().isEmpty()) {
                break;
            }
            read.addAll(page.jobs());
            after = DeadJobs.Cursor.of(page.jobs().get(page.jobs().size() - 1));
        }
        assertThat(read).extracting(DeadJob::id).containsExactlyElementsOf(all.stream().map(DeadJob::id).toList());

        // the job a cursor names leaves the dead set (requeued, deleted): the next page starts where it would have
        for (int at : new int[] { 0, 119, 120, 1500, 2998, 2999 }) {
            DeadJob gone = all.get(at);
            store.deadJobs().delete(whole("q"), List.of(gone.id()));
            DeadJobs.Page page = store.deadJobs().pageAfter(whole("q"), DeadJobs.Cursor.of(gone), 10);
            assertThat(page.jobs()).as("after the deleted job at %d", at).extracting(DeadJob::id)
                    .containsExactlyElementsOf(all.subList(at + 1, Math.min(at + 11, all.size())).stream()
                            .map(DeadJob::id).filter(id -> !id.equals(gone.id())).toList());
            redisson.getScoredSortedSet(k.dead(), StringCodec.INSTANCE).add(gone.diedAt(), gone.id());
        }
    }

    @Test
    void eachDeadJobShowsThePayloadVersionOfItsRecord() {
        Map<String, String> records = new HashMap<>();
        records.put("v2", record(JobEnvelope.wrap(Map.of("pv", "2"), "{\"a\":1}")));
        records.put("v7-traced", record(JobEnvelope.wrap(Map.of("traceparent", "00-ab-cd-01", "pv", "7"), "{}")));
        records.put("plain", record("{\"a\":1}"));
        records.put("traced", record(JobEnvelope.wrap(Map.of("traceparent", "00-ab-cd-01"), "{}")));
        records.put("garbled", record(JobEnvelope.wrap(Map.of("pv", "two"), "{}")));
        records.put("not-a-record", "hello");
        bury(records, "gone");

        Map<String, Integer> versions = new HashMap<>();
        store.deadJobs().page(whole("q"), 0, 10).jobs().forEach(job -> versions.put(job.id(), job.payloadVersion()));
        assertThat(versions).containsEntry("v2", 2).containsEntry("v7-traced", 7)
                .as("no version header: published at version 1, or before versions existed")
                .containsEntry("plain", 1).containsEntry("traced", 1)
                .as("a header that is no positive number reads as 0, as the consumer reads it")
                .containsEntry("garbled", 0)
                .as("no record to read").containsEntry("not-a-record", null).containsEntry("gone", null);
    }

    @Test
    void aPageReadsAtMostItsByteBudgetOfRecordsForTheVersions() {
        // five records of 400 KiB, newest first: the budget of 1 MiB reads two of them, then skips the
        // large ones but still reads a small one that fits
        String large = "\"" + "x".repeat(400 << 10) + "\"";
        Map<String, String> records = new HashMap<>();
        for (int i = 1; i <= 5; i++) {
            records.put("large-" + i, record(JobEnvelope.wrap(Map.of("pv", "3"), large)));
        }
        records.put("small", record(JobEnvelope.wrap(Map.of("pv", "3"), "{}")));
        Map<String, Double> diedAt = Map.of("large-1", 6.0, "large-2", 5.0, "large-3", 4.0, "large-4", 3.0,
                "small", 2.0, "large-5", 1.0);
        redisson.getMap(k.jobs(), StringCodec.INSTANCE).putAll(records);
        redisson.<String>getScoredSortedSet(k.dead(), StringCodec.INSTANCE).addAll(diedAt);

        assertThat(store.deadJobs().page(whole("q"), 0, 10).jobs()).extracting(DeadJob::id, DeadJob::payloadVersion)
                .containsExactly(tuple("large-1", 3), tuple("large-2", 3), tuple("large-3", null), tuple("large-4", null),
                        tuple("small", 3), tuple("large-5", null));
        assertThat(store.deadJobs().page(whole("q"), 2, 2).jobs()).as("each call has its own budget")
                .extracting(DeadJob::payloadVersion).containsExactly(3, 3);
    }

    private static String record(String payload) {
        return "1,lx5f3k0g,0|" + payload;
    }

    /** Puts the records in the jobs hash and their ids, and {@code recordless}, in the dead set. */
    private void bury(Map<String, String> records, String... recordless) {
        redisson.getMap(k.jobs(), StringCodec.INSTANCE).putAll(records);
        Map<String, Double> members = new HashMap<>();
        records.keySet().forEach(id -> members.put(id, 1_700_000_000_000.0));
        for (String id : recordless) {
            members.put(id, 1_700_000_000_000.0);
        }
        redisson.<String>getScoredSortedSet(k.dead(), StringCodec.INSTANCE).addAll(members);
    }

    /**
     * {@code n} dead jobs over {@code times} died-at milliseconds, with ids that a locale's collation
     * would order unlike the bytes (case, punctuation, accents); returns them newest first.
     */
    private List<DeadJob> deadJobs(int n, int times) {
        Random random = new Random(7);
        String[] parts = { "a", "B", "z", "Z", "-", "_", ".", "é", "É", "0", "9" };
        Map<String, Double> members = new HashMap<>();
        List<DeadJob> jobs = new ArrayList<>();
        while (members.size() < n) {
            StringBuilder id = new StringBuilder();
            for (int i = 0, len = 1 + random.nextInt(6); i < len; i++) {
                id.append(parts[random.nextInt(parts.length)]);
            }
            long diedAt = 1_700_000_000_000L + random.nextInt(times);
            if (members.putIfAbsent(id.toString(), (double) diedAt) == null) {
                jobs.add(new DeadJob(id.toString(), diedAt, 0, null, null));
            }
        }
        redisson.<String>getScoredSortedSet(k.dead(), StringCodec.INSTANCE).addAll(members);
        jobs.sort(DeadJobs.NEWEST_FIRST);
        return jobs;
    }
}
