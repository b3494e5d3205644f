package dev.delayjobs.redis;

import static dev.delayjobs.redis.RedisCalls.asLong;
import static dev.delayjobs.redis.RedisCalls.call;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;
import org.redisson.api.RScript;
import org.redisson.api.RScript.Mode;
import org.redisson.api.RScript.ReturnType;

import dev.delayjobs.JobInfo;
import dev.delayjobs.JobState;
import dev.delayjobs.payload.PayloadVersions;
import dev.delayjobs.queue.Partition;
import dev.delayjobs.store.StoredJob;

/**
 * The reading side of {@link RedisJobStore}: one job, every count of a queue, the queues known,
 * the consumer instances of a queue. Every read runs on the master, by script, so the starter reads
 * its own writes whatever Redisson's read mode.
 */
final class QueueReads {

    private static final LuaScript FIND = LuaScript.load(Script.FIND);
    private static final LuaScript QUEUE_STATS = LuaScript.load(Script.QUEUE_STATS);
    private static final LuaScript KNOWN_QUEUES = LuaScript.load(Script.KNOWN_QUEUES);
    private static final LuaScript CONSUMER_INSTANCES = LuaScript.load(Script.CONSUMER_INSTANCES);
    private static final LuaScript EXPIRED_INSTANCES = LuaScript.load(Script.EXPIRED_INSTANCES);
    private static final LuaScript PAYLOAD_VERSIONS = LuaScript.load(Script.PAYLOAD_VERSIONS);

    /**
     * The most held ids whose claim entries one stats call reads (queue-stats.lua): beyond, held
     * jobs count as running, not told apart from prefetched ones.
     */
    static final int HELD_IDS_READ = 10_000;

    /**
     * Of the groups measured, the most (the next to be served) whose oldest ready job is read for its
     * due time, and the most record bytes read for them, per stats call (queue-stats.lua): the
     * oldest waiting job of a grouped queue is looked for there.
     */
    static final int GROUP_HEADS_READ = 10;
    static final int GROUP_HEAD_BYTES = 1 << 20;

    private final RScript script;
    private final String prefix;
    private final Map<String, String> bridgedLists;
    private final RedissonQueueStore redissonQueues;

    QueueReads(RScript script, String prefix, Map<String, String> bridgedLists, RedissonQueueStore redissonQueues) {
        this.script = script;
        this.prefix = prefix;
        this.bridgedLists = bridgedLists;
        this.redissonQueues = redissonQueues;
    }

    Set<String> knownQueues() {
        List<Object> names = call("list the queues", null, () -> KNOWN_QUEUES.run(script, Mode.READ_WRITE, ReturnType.LIST,
                List.of(QueueKeys.registry(prefix))));
        Set<String> queues = new LinkedHashSet<>();
        names.forEach(name -> queues.add((String) name));
        return queues;
    }

    CompletableFuture<Optional<JobInfo>> findAsync(Partition partition, String id) {
        String queue = partition.name();
        QueueKeys k = keys(partition);
        return RedisCalls.completed("look up in", queue, FIND.<List<Object>>runAsync(script, Mode.READ_WRITE, ReturnType.LIST,
                k.of(k.jobs(), k.delayed(), k.dead(), k.errors(), k.successors(), k.claims(), k.groups()), id)).thenApply(r -> found(queue, id, r));
    }

    /** find.lua's reply read: the record, the state, the last error, the successor, the attempt count, the group. */
    private static Optional<JobInfo> found(String queue, String id, List<Object> r) {
        if (r.isEmpty()) {
            return Optional.empty();
        }
        String record = (String) r.get(0);
        JobState state = JobState.valueOf((String) r.get(1));
        String error = ((String) r.get(2)).isEmpty() ? null : (String) r.get(2);
        StoredJob job = JobRecords.parse(id, record, (String) r.get(4));
        JobInfo.Successor successor = successor(id, (String) r.get(3));
        String group = r.size() > 5 && !((String) r.get(5)).isEmpty() ? (String) r.get(5) : null;
        if (job == null) {
            return Optional.of(new JobInfo(queue, id, state, null, null, 0, error, record, successor, 1, group));
        }
        return Optional.of(new JobInfo(queue, id, state, Instant.ofEpochMilli(job.dueAt()),
                Instant.ofEpochMilli(job.publishedAt()), job.attempts(), error, job.payload(), successor,
                PayloadVersions.stored(job.headers()), group));
    }

    /**
     * find.lua's successor: '' for none, else the replace flag ('0'/'1'), for a grouped one its group
     * between two newlines, and the record (see _successors.lua).
     */
    private static JobInfo.@Nullable Successor successor(String id, String stored) {
        int record = stored.length() > 1 && stored.charAt(1) == '\n' ? stored.indexOf('\n', 2) + 1 : 1;
        StoredJob job = stored.isEmpty() || record == 0 ? null : JobRecords.parse(id, stored.substring(record), "0");
        if (job == null) {
            return null;
        }
        String group = record > 1 ? stored.substring(2, record - 1) : null;
        return new JobInfo.Successor(Instant.ofEpochMilli(job.dueAt()), Instant.ofEpochMilli(job.publishedAt()),
                stored.charAt(0) == '1', job.payload(), group);
    }

    @SuppressWarnings("unchecked")
    QueueStats stats(Partition partition) {
        String queue = partition.name();
        QueueKeys k = keys(partition);
        List<Object> keys = new ArrayList<>(k.of(k.delayed(), k.ready(), k.dead(), k.stats(), k.instances(), k.workers(),
                k.jobs(), k.control(), k.claims(), k.groupsReady()));
        keys.addAll(activeLists(k, consumerInstances(partition, false)));
        List<Object> r = call("read the counts of", queue, () -> QUEUE_STATS.run(script, Mode.READ_WRITE, ReturnType.LIST,
                keys, k.activePrefix(), Integer.toString(HELD_IDS_READ), Integer.toString(QueueStats.GROUPS_READ),
                Integer.toString(GROUP_HEADS_READ), Integer.toString(GROUP_HEAD_BYTES)));
        List<Object> counts = (List<Object>) r.get(0);
        List<Object> control = (List<Object>) r.get(3);
        List<Object> totals = (List<Object>) r.get(1);
        List<Object> members = (List<Object>) r.get(2);
        List<Object> groups = (List<Object>) r.get(4);
        List<QueueStats.ReadyGroup> readyGroups = new ArrayList<>();
        for (int i = 1; i + 1 < groups.size(); i += 2) {
            readyGroups.add(new QueueStats.ReadyGroup((String) groups.get(i), asLong(groups.get(i + 1))));
        }
        Map<String, Long> totalsByName = new LinkedHashMap<>();
        for (String name : List.of("published", "completed", "retried", "dead")) {
            totalsByName.put(name, 0L);
        }
        for (int i = 0; i + 1 < totals.size(); i += 2) {
            totalsByName.put((String) totals.get(i), Long.parseLong((String) totals.get(i + 1)));
        }
        List<QueueStats.ConsumerInstance> instances = new ArrayList<>();
        for (int i = 0; i + 4 < members.size(); i += 5) {
            instances.add(new QueueStats.ConsumerInstance((String) members.get(i), (long) Double.parseDouble((String) members.get(i + 1)),
                    Integer.parseInt((String) members.get(i + 2)), asLong(members.get(i + 3)), asLong(members.get(i + 4))));
        }
        QueueStats stats = new QueueStats(asLong(counts.get(0)), asLong(counts.get(1)), asLong(counts.get(2)),
                asLong(counts.get(3)), asLong(counts.get(4)), asLong(counts.get(5)), asLong(counts.get(6)), totalsByName,
                instances, QueueControls.parse(control.get(0), control.get(1)), null, asLong(groups.get(0)), readyGroups);
        // a bridged queue has one partition, named as the queue
        String bridged = bridgedLists.get(queue);
        return bridged == null ? stats : stats.bridging(bridged, redissonQueues.depth(bridged));
    }

    /** The waiting jobs per payload version, from a bounded read (payload-versions.lua). */
    PayloadVersionCounts payloadVersions(Partition partition) {
        QueueKeys k = keys(partition);
        List<Object> r = call("count the payload versions of", partition.name(), () -> PAYLOAD_VERSIONS.run(script,
                Mode.READ_WRITE, ReturnType.LIST, k.of(k.delayed(), k.ready(), k.jobs()), Integer.toString(PayloadVersionCounts.MOST_JOBS),
                Integer.toString(PayloadVersionCounts.MOST_BYTES)));
        Map<Integer, Long> byVersion = new java.util.TreeMap<>();
        for (int i = 2; i + 1 < r.size(); i += 2) {
            byVersion.put(Integer.parseInt((String) r.get(i)), asLong(r.get(i + 1)));
        }
        return new PayloadVersionCounts(asLong(r.get(0)), asLong(r.get(1)), byVersion);
    }

    /**
     * The instances in the partition's lease set, or only those whose lease ran out, read on the master:
     * recover-expired.lua and queue-stats.lua get their active lists as declared keys (a server or proxy that
     * checks declared keys, as some managed services do, refuses a script that touches others).
     */
    List<String> consumerInstances(Partition partition, boolean expiredOnly) {
        QueueKeys k = keys(partition);
        LuaScript instances = expiredOnly ? EXPIRED_INSTANCES : CONSUMER_INSTANCES;
        List<Object> members = call("list the consumers of", partition.name(), () -> instances.run(script, Mode.READ_WRITE,
                ReturnType.LIST, k.of(k.instances())));
        return members.stream().map(String.class::cast).toList();
    }

    static List<Object> activeLists(QueueKeys k, List<String> instances) {
        return instances.stream().<Object>map(k::active).toList();
    }

    private QueueKeys keys(Partition partition) {
        return new QueueKeys(prefix, partition);
    }
}
