package dev.delayjobs.partition;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

import dev.delayjobs.JobInfo;
import dev.delayjobs.redis.DeadJob;
import dev.delayjobs.redis.DeadJobs;
import dev.delayjobs.redis.QueueLayoutStore;
import dev.delayjobs.redis.RedisJobStore;

/**
 * What is asked of a whole queue, whatever its partitions: the operations on one job go to the
 * partition its id maps to, the counts and the dead set are read from every partition and merged.
 */
public final class PartitionedQueues {

    private final RedisJobStore store;
    private final QueueLayouts layouts;

    public PartitionedQueues(RedisJobStore store, QueueLayouts layouts) {
        this.store = store;
        this.layouts = layouts;
    }

    public QueueLayout layout(String queue) {
        return layouts.layout(queue);
    }

    /** The layout to route by once a publish found {@code queue} laid out in {@code partitions} partitions. */
    public QueueLayout layoutChanged(String queue, int partitions) {
        return layouts.changed(queue, partitions);
    }

    public boolean cancel(String queue, String id) {
        return byId(queue, id, partition -> store.cancel(partition, id), Boolean::booleanValue);
    }

    public boolean reschedule(String queue, String id, boolean relative, long time) {
        return byId(queue, id, partition -> store.reschedule(partition, id, relative, time), Boolean::booleanValue);
    }

    public Optional<JobInfo> find(String queue, String id) {
        // the partition's name stands in the record read; the caller asked by the queue's
        return byId(queue, id, partition -> store.find(partition, id), Optional::isPresent).map(job -> new JobInfo(queue,
                job.id(), job.state(), job.dueAt(), job.publishedAt(), job.attempts(), job.lastError(), job.payloadJson(), job.successor()));
    }

    /**
     * Runs {@code lookup} in the partition of job {@code id}; when it finds nothing and the queue
     * turns out to be laid out anew since this application read its layout, once more in the
     * partition the id maps to now.
     */
    private <T> T byId(String queue, String id, Function<String, T> lookup, Predicate<T> found) {
        QueueLayout layout = layout(queue);
        T result = lookup.apply(layout.partitionOf(id));
        if (!found.test(result)) {
            QueueLayout now = layouts.recheck(queue, layout);
            if (now != null) {
                return lookup.apply(now.partitionOf(id));
            }
        }
        return result;
    }

    /** Names of every queue published to or consumed under this prefix. */
    public Set<String> knownQueues() {
        return store.knownQueues();
    }

    /** Every count of the queue, in one call per partition. */
    public PartitionedStats stats(String queue) {
        List<PartitionedStats.Partition> partitions = new ArrayList<>();
        for (String name : layout(queue).partitions()) {
            partitions.add(new PartitionedStats.Partition(name, QueueLayoutStore.slot(name), store.stats(name)));
        }
        return PartitionedStats.of(partitions);
    }

    /**
     * A page of the queue's dead set, newest first over all partitions, and its size: the
     * {@code count} jobs after the {@code offset} newest. Each partition is read from its newest
     * job, so {@code offset + count} is at most {@link DeadJobs#MAX_PAGE}; {@link #deadPageAfter}
     * reads further.
     * @throws IllegalArgumentException when {@code offset + count} exceeds {@link DeadJobs#MAX_PAGE}
     */
    public DeadJobs.Page deadPage(String queue, int offset, int count) {
        if (offset < 0 || count < 1 || (long) offset + count > DeadJobs.MAX_PAGE) {
            throw new IllegalArgumentException("a page of dead jobs by offset reaches at most the " + DeadJobs.MAX_PAGE
                    + " newest (offset " + offset + " + count " + count + "); read further from a cursor");
        }
        QueueLayout layout = layout(queue);
        if (layout.size() == 1) {
            return store.deadJobs().page(queue, offset, count);
        }
        // the page may hold the first offset + count of any partition
        return merged(layout, partition -> store.deadJobs().page(partition, 0, offset + count), offset, count);
    }

    /**
     * Up to {@code count} dead jobs of the queue that come after {@code after} (from the newest when
     * null), newest first over all partitions, and the size of the dead set: one call per partition,
     * each reading at most {@code count} jobs however deep the cursor is.
     */
    public DeadJobs.Page deadPageAfter(String queue, DeadJobs.@Nullable Cursor after, int count) {
        QueueLayout layout = layout(queue);
        if (layout.size() == 1) {
            return store.deadJobs().pageAfter(queue, after, count);
        }
        return merged(layout, partition -> store.deadJobs().pageAfter(partition, after, count), 0, count);
    }

    private static DeadJobs.Page merged(QueueLayout layout, Function<String, DeadJobs.Page> read, int offset, int count) {
        long total = 0;
        List<DeadJob> merged = new ArrayList<>();
        for (String partition : layout.partitions()) {
            DeadJobs.Page page = read.apply(partition);
            total += page.total();
            merged.addAll(page.jobs());
        }
        merged.sort(DeadJobs.NEWEST_FIRST);
        List<DeadJob> jobs = merged.subList(Math.min(offset, merged.size()), Math.min(offset + count, merged.size()));
        return new DeadJobs.Page(total, List.copyOf(jobs));
    }

    /** Gives dead jobs a fresh start; {@code ids} empty means all of them. */
    public long requeueDead(String queue, List<String> ids) {
        return byPartition(queue, ids, (partition, some) -> store.deadJobs().requeue(partition, some));
    }

    /** Deletes dead jobs; {@code ids} empty means all of them. */
    public long deleteDead(String queue, List<String> ids) {
        return byPartition(queue, ids, (partition, some) -> store.deadJobs().delete(partition, some));
    }

    private long byPartition(String queue, List<String> ids, DeadSetChange change) {
        QueueLayout layout = layout(queue);
        Map<String, List<String>> grouped = new LinkedHashMap<>();
        if (ids.isEmpty()) {
            layout.partitions().forEach(partition -> grouped.put(partition, List.of()));
        }
        else {
            ids.forEach(id -> grouped.computeIfAbsent(layout.partitionOf(id), p -> new ArrayList<>()).add(id));
        }
        long done = 0;
        for (Map.Entry<String, List<String>> entry : grouped.entrySet()) {
            done += change.apply(entry.getKey(), entry.getValue());
        }
        return done;
    }

    @FunctionalInterface
    private interface DeadSetChange {
        long apply(String partition, List<String> ids);
    }
}
