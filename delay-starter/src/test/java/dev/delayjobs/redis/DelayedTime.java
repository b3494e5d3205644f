package dev.delayjobs.redis;

import org.redisson.api.RScoredSortedSet;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/** Moves the due times of a partition's delayed jobs, grouped ones included, as if time had passed. */
final class DelayedTime {

    private DelayedTime() {
    }

    /** Every delayed job of the partition {@code k} names, and every group's mark, due {@code millis} earlier. */
    static void pass(RedissonClient redisson, QueueKeys k, long millis) {
        RScoredSortedSet<String> delayed = redisson.getScoredSortedSet(k.delayed(), StringCodec.INSTANCE);
        for (String member : delayed.readAll()) {
            delayed.addScore(member, -millis);
            if (member.startsWith("\u0001")) {
                RScoredSortedSet<String> group = redisson.getScoredSortedSet(k.delayed() + ":" + member.substring(1),
                        StringCodec.INSTANCE);
                for (String id : group.readAll()) {
                    group.addScore(id, -millis);
                }
            }
        }
    }
}
