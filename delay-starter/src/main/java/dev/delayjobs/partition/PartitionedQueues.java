package dev.delayjobs.partition;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

import dev.delayjobs.JobInfo;
import dev.delayjobs.queue.Partition;
import dev.delayjobs.queue.QueueName;
import dev.delayjobs.redis.DeadJob;
import dev.delayjobs.redis.DeadJobs;
import dev.delayjobs.redis.PayloadVersionCounts;
import dev.delayjobs.redis.RedisJobStore;

/**
 * What is asked of a whole queue, whatever its partitions: the operations on one job go to the
 * partition its id maps to first, and to the others when it is not there (a grouped job is in its
 * group's partition); an operation on the whole queue (counts, dead set, pause, resume, rate
 * limit, and the test support's fast-forward and clear) runs on every partition through
 * {@link #onEveryPartition}.
 */
public final class PartitionedQueues {

    private final RedisJobStore store;
    private final QueueLayouts layouts;

    public PartitionedQueues(RedisJobStore store, QueueLayouts layouts) {
        this.store = store;
        this.layouts = layouts;
    }

    public QueueLayout layout(QueueName queue) {
        return layouts.layout(queue);
    }

    /** The layout to route by once a publish found {@code queue} laid out in {@code partitions} partitions. */
    public QueueLayout layoutChanged(QueueName queue, int partitions) {
        return layouts.changed(queue, partitions);
    }

    /**
     * Runs {@code operation} on every partition of {@code queue}, in order, and returns what each
     * returned, in order: the one place an operation on a whole queue fans out over its partitions.
     * A failure stops it there and propagates; the partitions before keep what was done (every
     * such operation may be run again).
     */
    public <T> List<T> onEveryPartition(QueueName queue, Function<Partition, T> operation) {
        return onEveryPartition(layout(queue), operation);
    }

    /** {@link #onEveryPartition(QueueName, Function)} on a layout the caller read already. */
    public static <T> List<T> onEveryPartition(QueueLayout layout, Function<Partition, T> operation) {
        List<T> results = new ArrayList<>(layout.size());
        for (Partition partition : layout.all()) {
            results.add(operation.apply(partition));
        }
        return results;
    }

    public boolean cancel(QueueName queue, String id) {
        return byId(queue, id, partition -> store.cancel(partition, id), Boolean::booleanValue);
    }

    public boolean reschedule(QueueName queue, String id, boolean relative, long time) {
        return byId(queue, id, partition -> store.reschedule(partition, id, relative, time), Boolean::booleanValue);
    }

    public Optional<JobInfo> find(QueueName queue, String id) {
        return byId(queue, id, partition -> store.find(partition, id), Optional::isPresent).map(job -> named(queue, job));
    }

    /** The partition's name stands in the record read; the caller asked by the queue's. */
    private static JobInfo named(QueueName queue, JobInfo job) {
        return new JobInfo(queue.value(), job.id(), job.state(), job.dueAt(), job.publishedAt(), job.attempts(), job.lastError(),
                job.payloadJson(), job.successor(), job.payloadVersion(), job.group());
    }

    /**
     * Runs {@code lookup} where job {@code id} may be: its own partition first (an ungrouped job's),
     * then the others in order until one finds it (a grouped job is in its group's partition, which
     * the caller does not name); when none does and the queue turns out to be laid out anew since
     * this application read its layout, the same in the new layout. A hit costs one call when the
     * job is ungrouped, a miss one call per partition.
     */
    private <T> T byId(QueueName queue, String id, Function<Partition, T> lookup, Predicate<T> found) {
        QueueLayout layout = layout(queue);
        T result = inEveryPartition(layout, id, lookup, found);
        if (!found.test(result)) {
            QueueLayout now = layouts.recheck(queue, layout);
            if (now != null) {
                return inEveryPartition(now, id, lookup, found);
            }
        }
        return result;
    }

    private static <T> T inEveryPartition(QueueLayout layout, String id, Function<Partition, T> lookup, Predicate<T> found) {
        Partition own = layout.partitionOf(id);
        T result = lookup.apply(own);
        for (Partition partition : layout.all()) {
            if (found.test(result)) {
                return result;
            }
            if (!partition.equals(own)) {
                result = lookup.apply(partition);
            }
        }
        return result;
    }

    /** {@link #layout} without waiting for Redis (see {@link QueueLayouts#layoutAsync}). */
    public CompletableFuture<QueueLayout> layoutAsync(QueueName queue) {
        return layouts.layoutAsync(queue);
    }

    /** {@link #cancel} without waiting: the same script calls, completed on Redisson's I/O thread. */
    public CompletableFuture<Boolean> cancelAsync(QueueName queue, String id) {
        return byIdAsync(queue, id, partition -> store.cancelAsync(partition, id), Boolean::booleanValue);
    }

    /** {@link #reschedule} without waiting. */
    public CompletableFuture<Boolean> rescheduleAsync(QueueName queue, String id, boolean relative, long time) {
        return byIdAsync(queue, id, partition -> store.rescheduleAsync(partition, id, relative, time), Boolean::booleanValue);
    }

    /** {@link #find} without waiting. */
    public CompletableFuture<Optional<JobInfo>> findAsync(QueueName queue, String id) {
        return byIdAsync(queue, id, partition -> store.findAsync(partition, id), Optional::isPresent)
                .thenApply(found -> found.map(job -> named(queue, job)));
    }

    /** {@link #byId} without waiting: the same lookups, each sent when the one before answered. */
    private <T> CompletableFuture<T> byIdAsync(QueueName queue, String id, Function<Partition, CompletableFuture<T>> lookup,
            Predicate<T> found) {
        return layoutAsync(queue).thenCompose(layout -> inEveryPartitionAsync(layout, id, lookup, found).thenCompose(result -> {
            if (found.test(result)) {
                return CompletableFuture.completedFuture(result);
            }
            return layouts.recheckAsync(queue, layout).thenCompose(now -> now == null ? CompletableFuture.completedFuture(result)
                    : inEveryPartitionAsync(now, id, lookup, found));
        }));
    }

    private static <T> CompletableFuture<T> inEveryPartitionAsync(QueueLayout layout, String id,
            Function<Partition, CompletableFuture<T>> lookup, Predicate<T> found) {
        Partition own = layout.partitionOf(id);
        CompletableFuture<T> result = lookup.apply(own);
        for (Partition partition : layout.all()) {
            if (!partition.equals(own)) {
                result = result.thenCompose(before -> found.test(before) ? CompletableFuture.completedFuture(before)
                        : lookup.apply(partition));
            }
        }
        return result;
    }

    /** Names of every queue published to or consumed under this prefix. */
    public Set<String> knownQueues() {
        return store.knownQueues();
    }

    /** Every count of the queue, in one call per partition. */
    public PartitionedStats stats(QueueName queue) {
        return PartitionedStats.of(onEveryPartition(queue,
                partition -> new PartitionedStats.Partition(partition.name(), partition.slot(), store.stats(partition))));
    }

    /** The waiting jobs per payload version over all partitions, each read within its bound ({@link PayloadVersionCounts}). */
    public PayloadVersionCounts payloadVersions(QueueName queue) {
        return onEveryPartition(queue, partition -> store.payloadVersions(partition)).stream()
                .reduce(new PayloadVersionCounts(0, 0, java.util.Map.of()), PayloadVersionCounts::plus);
    }

    /**
     * A page of the queue's dead set, newest first over all partitions, and its size: the
     * {@code count} jobs after the {@code offset} newest. Each partition is read from its newest
     * job, so {@code offset + count} is at most {@link DeadJobs#MAX_PAGE}; {@link #deadPageAfter}
     * reads further.
     * @throws IllegalArgumentException when {@code offset + count} exceeds {@link DeadJobs#MAX_PAGE}
     */
    public DeadJobs.Page deadPage(QueueName queue, int offset, int count) {
        if (offset < 0 || count < 1 || (long) offset + count > DeadJobs.MAX_PAGE) {
            throw new IllegalArgumentException("a page of dead jobs by offset reaches at most the " + DeadJobs.MAX_PAGE
                    + " newest (offset " + offset + " + count " + count + "); read further from a cursor");
        }
        QueueLayout layout = layout(queue);
        if (layout.size() == 1) {
            return store.deadJobs().page(layout.all().get(0), offset, count);
        }
        // the page may hold the first offset + count of any partition
        return merged(layout, partition -> store.deadJobs().page(partition, 0, offset + count), offset, count);
    }

    /**
     * Up to {@code count} dead jobs of the queue that come after {@code after} (from the newest when
     * null), newest first over all partitions, and the size of the dead set: one call per partition,
     * each reading at most {@code count} jobs however deep the cursor is.
     */
    public DeadJobs.Page deadPageAfter(QueueName queue, DeadJobs.@Nullable Cursor after, int count) {
        QueueLayout layout = layout(queue);
        if (layout.size() == 1) {
            return store.deadJobs().pageAfter(layout.all().get(0), after, count);
        }
        return merged(layout, partition -> store.deadJobs().pageAfter(partition, after, count), 0, count);
    }

    private static DeadJobs.Page merged(QueueLayout layout, Function<Partition, DeadJobs.Page> read, int offset, int count) {
        long total = 0;
        List<DeadJob> merged = new ArrayList<>();
        for (DeadJobs.Page page : onEveryPartition(layout, read)) {
            total += page.total();
            merged.addAll(page.jobs());
        }
        merged.sort(DeadJobs.NEWEST_FIRST);
        List<DeadJob> jobs = merged.subList(Math.min(offset, merged.size()), Math.min(offset + count, merged.size()));
        return new DeadJobs.Page(total, List.copyOf(jobs));
    }

    /** Gives dead jobs a fresh start; {@code ids} empty means all of them. */
    public long requeueDead(QueueName queue, List<String> ids) {
        return byPartition(queue, ids, (partition, some) -> store.deadJobs().requeue(partition, some));
    }

    /** Deletes dead jobs; {@code ids} empty means all of them. */
    public long deleteDead(QueueName queue, List<String> ids) {
        return byPartition(queue, ids, (partition, some) -> store.deadJobs().delete(partition, some));
    }

    /**
     * Applies {@code change} to the dead jobs {@code ids} in the partitions of their ids (an
     * ungrouped job's); when fewer are done than asked, to all of them in every other partition too
     * (a grouped job is in its group's partition; an id that is not dead there is passed over).
     */
    private long byPartition(QueueName queue, List<String> ids, DeadSetChange change) {
        QueueLayout layout = layout(queue);
        if (ids.isEmpty()) {
            return onEveryPartition(layout, partition -> change.apply(partition, List.of())).stream()
                    .mapToLong(Long::longValue).sum();
        }
        Map<Partition, List<String>> grouped = new LinkedHashMap<>();
        ids.forEach(id -> grouped.computeIfAbsent(layout.partitionOf(id), p -> new ArrayList<>()).add(id));
        long done = 0;
        for (Map.Entry<Partition, List<String>> entry : grouped.entrySet()) {
            done += change.apply(entry.getKey(), entry.getValue());
        }
        if (done < ids.size() && layout.size() > 1) {
            for (Partition partition : layout.all()) {
                List<String> elsewhere = ids.stream().filter(id -> !layout.partitionOf(id).equals(partition)).toList();
                if (!elsewhere.isEmpty()) {
                    done += change.apply(partition, elsewhere);
                }
            }
        }
        return done;
    }

    @FunctionalInterface
    private interface DeadSetChange {
        long apply(Partition partition, List<String> ids);
    }
}
