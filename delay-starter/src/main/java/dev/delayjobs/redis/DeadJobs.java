package dev.delayjobs.redis;

import java.time.Duration;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

import org.jspecify.annotations.Nullable;
import org.redisson.api.RScript;
import org.redisson.api.RScript.Mode;
import org.redisson.api.RScript.ReturnType;

import dev.delayjobs.payload.PayloadVersions;
import dev.delayjobs.queue.Partition;

/**
 * The dead set of each partition of the queues (a queue that is not partitioned is its own single
 * partition), as operators and the retention sweep use it: pages of it, requeue, delete, and
 * trimming what outlived the retention. Part of {@link RedisJobStore}
 * ({@link RedisJobStore#deadJobs()}).
 */
public final class DeadJobs {

    private static final LuaScript TRIM_DEAD = LuaScript.load(Script.TRIM_DEAD);
    private static final LuaScript DEAD_PAGE = LuaScript.load(Script.DEAD_PAGE);
    private static final LuaScript REQUEUE_DEAD = LuaScript.load(Script.REQUEUE_DEAD);
    private static final LuaScript DELETE_DEAD = LuaScript.load(Script.DELETE_DEAD);
    /** Dead jobs moved per script call by the "all" variants. */
    private static final int BATCH = 1000;

    private final RScript script;
    private final String prefix;
    /** The size of a partition's dead set, read on the master. */
    private final ToLongFunction<Partition> deadCount;

    DeadJobs(RScript script, String prefix, ToLongFunction<Partition> deadCount) {
        this.script = script;
        this.prefix = prefix;
        this.deadCount = deadCount;
    }

    /** The most dead jobs one call reads (dead-page.lua refuses more). */
    public static final int MAX_PAGE = 1000;
    /**
     * The most record bytes one page call reads for the jobs' payload versions (1 MiB: 16 records of
     * the default largest payload, about 2 ms of Redis time): a record that would pass it shows no
     * version.
     */
    public static final int MOST_RECORD_BYTES = 1 << 20;

    /** Newest first: died-at time descending, then id descending byte by byte, as dead-page.lua orders them. */
    public static final Comparator<DeadJob> NEWEST_FIRST = Comparator.comparingLong(DeadJob::diedAt).reversed()
            .thenComparing((a, b) -> Arrays.compareUnsigned(b.id().getBytes(StandardCharsets.UTF_8),
                    a.id().getBytes(StandardCharsets.UTF_8)));

    /** Up to {@code count} dead jobs after skipping the {@code offset} newest, and the size of the whole set. */
    public Page page(Partition partition, int offset, int count) {
        return page(partition, count, Integer.toString(offset), "", "");
    }

    /**
     * Up to {@code count} dead jobs that come after {@code after} (newest first), whether that job is
     * still dead or not; from the newest when {@code after} is null.
     */
    public Page pageAfter(Partition partition, @Nullable Cursor after, int count) {
        return after == null ? page(partition, 0, count)
                : page(partition, count, "0", Long.toString(after.diedAt()), after.id());
    }

    private Page page(Partition partition, int count, String offset, String afterDiedAt, String afterId) {
        if (count < 1 || count > MAX_PAGE) {
            throw new IllegalArgumentException("a page of dead jobs holds 1 to " + MAX_PAGE + " jobs, not " + count);
        }
        QueueKeys k = keys(partition);
        List<Object> r = RedisCalls.call("list dead jobs of", partition.name(), () -> DEAD_PAGE.run(script, Mode.READ_WRITE,
                ReturnType.LIST, k.of(k.dead(), k.jobs(), k.errors(), k.claims()), Integer.toString(count), offset, afterDiedAt,
                afterId, Integer.toString(MOST_RECORD_BYTES)));
        List<DeadJob> jobs = new ArrayList<>();
        for (int i = 1; i + 4 < r.size(); i += 5) {
            String error = (String) r.get(i + 3);
            jobs.add(new DeadJob((String) r.get(i), (long) Double.parseDouble((String) r.get(i + 1)),
                    ((Number) r.get(i + 2)).intValue(), error.isEmpty() ? null : error, payloadVersion((String) r.get(i + 4))));
        }
        return new Page(((Number) r.get(0)).longValue(), jobs);
    }

    /** dead-page.lua's payload version: the 'pv' header's text (URL-encoded), '' without one, '-' when not read. */
    private static @Nullable Integer payloadVersion(String header) {
        if (header.equals("-")) {
            return null;
        }
        return PayloadVersions.stored(header.isEmpty() ? Map.of()
                : Map.of(PayloadVersions.HEADER, URLDecoder.decode(header, StandardCharsets.UTF_8)));
    }

    /** A page of dead jobs and the size of the dead set. */
    public record Page(long total, List<DeadJob> jobs) {
    }

    /**
     * Where a page of dead jobs ended: the died-at time and id of its last job. Written
     * {@code <died at millis>:<id>}.
     */
    public record Cursor(long diedAt, String id) {

        public static Cursor of(DeadJob job) {
            return new Cursor(job.diedAt(), job.id());
        }

        /** @throws IllegalArgumentException when {@code text} is not {@code <died at millis>:<id>} */
        public static Cursor parse(String text) {
            int colon = text.indexOf(':');
            try {
                if (colon > 0 && colon < text.length() - 1) {
                    return new Cursor(Long.parseLong(text.substring(0, colon)), text.substring(colon + 1));
                }
            }
            catch (NumberFormatException ex) {
                // reported below
            }
            throw new IllegalArgumentException("'" + text + "' is no dead-job cursor: use <died at millis>:<job id>, "
                    + "as the previous page's 'next' gives it");
        }

        @Override
        public String toString() {
            return diedAt + ":" + id;
        }
    }

    /** Gives dead jobs a fresh start (attempts reset, due now); {@code ids} empty means all of them. */
    public long requeue(Partition partition, List<String> ids) {
        return inBatches(partition, REQUEUE_DEAD, "requeue dead jobs of", ids, true);
    }

    /** Deletes dead jobs; {@code ids} empty means all of them. */
    public long delete(Partition partition, List<String> ids) {
        return inBatches(partition, DELETE_DEAD, "delete dead jobs of", ids, false);
    }

    /** Deletes up to {@code max} dead jobs older than {@code retention}. */
    public int trim(Partition partition, Duration retention, int max) {
        QueueKeys k = keys(partition);
        Long r = RedisCalls.call("trim dead jobs of", partition.name(), () -> TRIM_DEAD.run(script, Mode.READ_WRITE,
                ReturnType.LONG, k.of(k.dead(), k.jobs(), k.errors(), k.claims(), k.groups()), Long.toString(retention.toMillis()),
                Integer.toString(max)));
        return r.intValue();
    }

    private long inBatches(Partition partition, LuaScript lua, String action, List<String> ids, boolean toReady) {
        String queue = partition.name();
        QueueKeys k = keys(partition);
        List<Object> keyList = toReady ? k.of(k.dead(), k.jobs(), k.errors(), k.ready(), k.stats(), k.claims(), k.groups(),
                k.groupsReady(), k.groupHeld())
                : k.of(k.dead(), k.jobs(), k.errors(), k.claims(), k.groups());
        long total = 0;
        if (!ids.isEmpty()) {
            for (int from = 0; from < ids.size(); from += BATCH) {
                List<Object> args = new ArrayList<>();
                args.add(Integer.toString(BATCH));
                args.addAll(ids.subList(from, Math.min(ids.size(), from + BATCH)));
                Long done = RedisCalls.call(action, queue, () -> lua.run(script, Mode.READ_WRITE, ReturnType.LONG,
                        keyList, args.toArray()));
                total += done;
            }
            return total;
        }
        // bounded by the size at the start: jobs that die again meanwhile wait for the next call;
        // counted on the master, where a replica's count may lag behind
        long rounds = deadCount.applyAsLong(partition) / BATCH + 1;
        for (long round = 0; round < rounds; round++) {
            Long done = RedisCalls.call(action, queue, () -> lua.run(script, Mode.READ_WRITE, ReturnType.LONG, keyList,
                    Integer.toString(BATCH)));
            total += done;
            if (done == 0) {
                break;
            }
        }
        return total;
    }

    private QueueKeys keys(Partition partition) {
        return new QueueKeys(prefix, partition);
    }
}
