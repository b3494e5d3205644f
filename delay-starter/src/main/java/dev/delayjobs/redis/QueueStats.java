package dev.delayjobs.redis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.delayjobs.DelayQueueControl.QueueControlState;

/**
 * Every count of one queue, read in one script call.
 *
 * @param serverNow the Redis server clock, epoch ms
 * @param delayed jobs waiting for their due time (retries included)
 * @param ready due jobs waiting for a consumer (ids in the ready list, stale ones included), and jobs
 *     waiting in consumers' prefetch buffers (PREFETCHED)
 * @param running jobs consumer instances started and hold
 * @param dead jobs in the dead set
 * @param nextDueAt due time of the earliest delayed job, epoch ms, or -1
 * @param oldestWaitingDueAt due time of the oldest job that is due and not yet started (ready or prefetched), epoch ms,
 *     or -1 when none is waiting
 * @param totals counters shared by all instances: published, completed, retried, dead
 * @param instances the consumer instances holding a lease on the queue
 * @param control whether the queue is paused, and its runtime rate limit
 * @param bridge for a queue that bridges a Redisson {@code RDelayedQueue}, that queue's own depth,
 *     which the counts above include; {@code null} for a native queue
 * @param groups groups with ready jobs (or parked at their group-concurrency limit), the default
 *     group not counted
 * @param readyGroups the ready jobs of the groups measured: the first {@link #GROUPS_READ}
 *     of each partition's rotation (the next to be served), largest first; {@code ready} includes
 *     theirs, not those of groups beyond
 */
public record QueueStats(long serverNow, long delayed, long ready, long running, long dead, long nextDueAt,
        long oldestWaitingDueAt, Map<String, Long> totals, List<ConsumerInstance> instances, QueueControlState control,
        @Nullable BridgedDepth bridge, long groups, List<ReadyGroup> readyGroups) {

    /**
     * The most groups of a partition's rotation whose ready lists one stats call measures
     * (queue-stats.lua): {@code groups} counts them all, {@code ready} and {@code readyGroups}
     * cover these.
     */
    public static final int GROUPS_READ = 100;

    public QueueStats {
        readyGroups = readyGroups.stream().sorted(LARGEST_FIRST).toList();
    }

    private static final java.util.Comparator<ReadyGroup> LARGEST_FIRST = java.util.Comparator
            .comparingLong(ReadyGroup::ready).reversed().thenComparing(ReadyGroup::group);

    /**
     * A group and its ready jobs.
     *
     * @param group its name
     * @param ready ids in its ready list, stale ones (cancelled or rescheduled since) included
     */
    public record ReadyGroup(String group, long ready) {
    }

    /**
     * These counts with those of the Redisson queue over {@code target} added: its waiting elements
     * count as delayed, those in the target list as ready, and an element its transfer left behind
     * past its due time as waiting since then.
     */
    QueueStats bridging(String target, RedissonQueueStore.Depth depth) {
        long next = earliest(nextDueAt, depth.nextDueAt());
        long oldest = depth.nextDueAt() >= 0 && depth.nextDueAt() <= serverNow
                ? earliest(oldestWaitingDueAt, depth.nextDueAt()) : oldestWaitingDueAt;
        return new QueueStats(serverNow, delayed + depth.delayed(), ready + depth.ready(), running, dead, next, oldest,
                totals, instances, control, new BridgedDepth(target, depth.delayed(), depth.ready(), depth.nextDueAt()), groups,
                readyGroups);
    }

    /**
     * The counts of several partitions of one queue as the queue's: sums, the earliest due times,
     * each consumer instance once (it consumes every partition with the same workers, and holds what
     * it holds in all of them), and the first partition's control state (controls are set on every
     * partition at once); the groups of all partitions (a group's ready jobs are in one partition).
     */
    public static QueueStats sum(List<QueueStats> partitions) {
        if (partitions.size() == 1) {
            return partitions.get(0);
        }
        long now = 0;
        long delayed = 0;
        long ready = 0;
        long running = 0;
        long dead = 0;
        long nextDue = -1;
        long oldestWaiting = -1;
        Map<String, Long> totals = new LinkedHashMap<>();
        Map<String, ConsumerInstance> instances = new LinkedHashMap<>();
        long groups = 0;
        List<ReadyGroup> readyGroups = new ArrayList<>();
        for (QueueStats s : partitions) {
            groups += s.groups();
            readyGroups.addAll(s.readyGroups());
            now = Math.max(now, s.serverNow());
            delayed += s.delayed();
            ready += s.ready();
            running += s.running();
            dead += s.dead();
            nextDue = earliest(nextDue, s.nextDueAt());
            oldestWaiting = earliest(oldestWaiting, s.oldestWaitingDueAt());
            s.totals().forEach((name, value) -> totals.merge(name, value, Long::sum));
            for (ConsumerInstance i : s.instances()) {
                instances.merge(i.id(), i, (a, b) -> new ConsumerInstance(a.id(), Math.min(a.leaseDeadline(), b.leaseDeadline()),
                        Math.max(a.workers(), b.workers()), a.held() + b.held(), a.prefetched() + b.prefetched()));
            }
        }
        return new QueueStats(now, delayed, ready, running, dead, nextDue, oldestWaiting, totals,
                new ArrayList<>(instances.values()), partitions.get(0).control(), null, groups, readyGroups);
    }

    private static long earliest(long a, long b) {
        if (a < 0) {
            return b;
        }
        return b < 0 ? a : Math.min(a, b);
    }

    /**
     * The part of a bridged queue's counts that is still in the Redisson {@code RDelayedQueue}.
     *
     * @param target the name of its target list
     * @param delayed elements in its timeout set
     * @param ready elements in its target list
     * @param nextDueAt the earliest due time in its timeout set, epoch ms, or -1
     */
    public record BridgedDepth(String target, long delayed, long ready, long nextDueAt) {
    }

    /** How long the oldest waiting job has been overdue, in ms (0 when none is). */
    public long oldestLatenessMillis() {
        return oldestWaitingDueAt < 0 ? 0 : Math.max(0, serverNow - oldestWaitingDueAt);
    }

    /**
     * A consumer instance of the queue.
     *
     * @param id the instance id
     * @param leaseDeadline when its lease runs out unless renewed, epoch ms
     * @param workers its concurrency
     * @param held jobs it holds now, running or prefetched
     * @param prefetched of those, the jobs waiting in its prefetch buffer (not started)
     */
    public record ConsumerInstance(String id, long leaseDeadline, int workers, long held, long prefetched) {

        /** The jobs it holds that started. */
        public long running() {
            return held - prefetched;
        }
    }
}
