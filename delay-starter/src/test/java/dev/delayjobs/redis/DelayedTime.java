package dev.delayjobs.redis;

import java.util.Map;

import org.redisson.api.RMap;
import org.redisson.api.RScoredSortedSet;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/** Moves the due times of a partition's delayed jobs, grouped and paged ones included, as if time had passed. */
final class DelayedTime {

    private DelayedTime() {
    }

    /**
     * Every delayed job of the partition {@code k} names, every group's and page's mark, every page's
     * bound and every record's due time {@code millis} earlier (records and pages stay consistent: a
     * job of the default group is found by its record's due time, see _delayed.lua).
     */
    static void pass(RedissonClient redisson, QueueKeys k, long millis) {
        RScoredSortedSet<String> delayed = redisson.getScoredSortedSet(k.delayed(), StringCodec.INSTANCE);
        for (String member : delayed.readAll()) {
            delayed.addScore(member, -millis);
            String set = member.startsWith("\u0001") ? k.delayed() + ":" + member.substring(1)
                    : member.startsWith("\u0002") ? k.delayed() + ":" + member : null;
            if (set != null) {
                RScoredSortedSet<String> jobs = redisson.getScoredSortedSet(set, StringCodec.INSTANCE);
                for (String id : jobs.readAll()) {
                    jobs.addScore(id, -millis);
                }
            }
        }
        RScoredSortedSet<String> pages = redisson.getScoredSortedSet(k.delayedPages(), StringCodec.INSTANCE);
        for (String page : pages.readAll()) {
            pages.addScore(page, -millis);
        }
        RMap<String, String> records = redisson.getMap(k.jobs(), StringCodec.INSTANCE);
        for (Map.Entry<String, String> record : records.readAllMap().entrySet()) {
            String[] header = record.getValue().split(",", 3);
            long due = Long.parseLong(header[1], 36) - millis;
            records.fastPut(record.getKey(), header[0] + "," + Long.toString(due, 36) + "," + header[2]);
        }
    }
}
