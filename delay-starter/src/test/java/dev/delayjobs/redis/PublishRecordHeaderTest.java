package dev.delayjobs.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.delayjobs.test.TestPartitions.whole;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import dev.delayjobs.test.TestRedis;

/**
 * The record headers publish.lua writes: the client sends each job's time in base 36 and the
 * script formats only what it must, so the gens of one call (across a base-36 carry), the due times
 * and the ages must still be the numbers they stand for.
 */
class PublishRecordHeaderTest {

    static final RedissonClient redisson = TestRedis.sharedClient();

    @Test
    void aBatchGetsConsecutiveGensAndTheDueTimesAndAgesItAskedFor() {
        String prefix = TestRedis.uniquePrefix();
        RedisJobStore store = new RedisJobStore(redisson, prefix);
        QueueKeys k = new QueueKeys(prefix, "q");
        long at = System.currentTimeMillis() + 3_600_000;
        List<NewJob> jobs = new ArrayList<>();
        // 80 jobs: gens 1..80 cross the carries after 'z' (35) and '1z' (71); delays, instants, and an instant past
        for (int i = 0; i < 80; i++) {
            jobs.add(i % 3 == 0 ? new NewJob("a" + i, false, i == 0 ? 1_000 : at + i, false, "\"" + i + "\"")
                    : new NewJob("d" + i, true, 60_000L * i, false, "\"" + i + "\""));
        }
        store.publish(whole("q"), jobs);
        Map<String, String> records = redisson.<String, String>getMap(k.jobs(), StringCodec.INSTANCE).readAllMap();

        for (int i = 0; i < 80; i++) {
            NewJob job = jobs.get(i);
            String[] header = records.get(job.id()).split("\\|", 2)[0].split(",");
            assertThat(header[0]).as("gen of job %d", i).isEqualTo(Long.toString(i + 1, 36));
            long due = Long.parseLong(header[1], 36);
            long age = Long.parseLong(header[2], 36);
            if (job.relative()) {
                assertThat(age).as("age of a delay").isEqualTo(job.time());
            }
            else {
                assertThat(due).as("due time of an instant").isEqualTo(job.time());
            }
            long published = due - age;
            assertThat(published).as("published at, Redis clock").isBetween(System.currentTimeMillis() - 60_000, System.currentTimeMillis() + 60_000);
            assertThat(records.get(job.id())).endsWith("|\"" + i + "\"");
        }
        assertThat(Long.parseLong(records.get("a0").split("\\|", 2)[0].split(",")[2], 36)).as("an instant past: negative age").isNegative();
    }
}
