package dev.delayjobs.redis;

import static dev.delayjobs.redis.RedisCalls.asLong;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.LongConsumer;

import org.redisson.Redisson;
import org.redisson.api.RScript;
import org.redisson.api.RScript.Mode;
import org.redisson.api.RScript.ReturnType;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import dev.delayjobs.DelayQueueException;
import dev.delayjobs.JobInfo;
import dev.delayjobs.queue.Partition;
import dev.delayjobs.queue.QueueName;

/**
 * The data model of the delay queues: the job life cycle, through {@link #partition} a partition's
 * claimed jobs, through {@link #leases()} the consumers' leases, and through {@link #deadJobs()} the
 * dead set. With {@link QueueControls} (pause, rate limits), the only classes that know a key name or run
 * a script. Every state change is one atomic Lua script, O(log N) or better in the backlog.
 *
 * <p>Every script runs on the master ({@code Mode.READ_WRITE}), the reading ones too, so the
 * starter reads its own writes whatever Redisson's read mode ({@code SLAVE} is its default for
 * Cluster and Sentinel).
 *
 * <p>Internal API: used by the publisher, the watchdog timer and the listener containers.
 * Failures to reach Redis surface as {@link DelayQueueException}.
 */
public final class RedisJobStore {

    private static final LuaScript TRANSFER = LuaScript.load(Script.TRANSFER);
    private static final LuaScript CANCEL = LuaScript.load(Script.CANCEL);
    private static final LuaScript RESCHEDULE = LuaScript.load(Script.RESCHEDULE);
    private static final LuaScript REGISTER_QUEUE = LuaScript.load(Script.REGISTER_QUEUE);
    /**
     * How long the claim fence of a forgotten instance (stopped, or its lease ran out) is kept: far
     * longer than any claim of it can take to reach Redis, and short enough that the fences of
     * instance ids that never return do not pile up.
     */
    static final Duration FORGOTTEN_FENCE_KEPT = Duration.ofDays(1);

    private final RedissonClient redisson;
    private final String prefix;
    private final RScript script;
    private final int longestRecord;
    private final Set<QueueName> registered = ConcurrentHashMap.newKeySet();
    private final DeadJobs deadJobs;
    private final Map<String, String> bridgedLists;
    private final RedissonQueueStore redissonQueues;
    private final QueueReads reads;
    private final ConsumerLeases leases;
    /** How long request memos live under the client's timeout and retry settings. */
    private final RequestMemo memo;
    /** The scripts that leave request memos, with the client's memo lifetime. */
    private final PublishCalls publishCalls;
    private final LuaScript claimScript;
    private final LuaScript cancelScript;

    public RedisJobStore(RedissonClient redisson, String prefix) {
        this(redisson, prefix, Integer.MAX_VALUE);
    }

    /**
     * @param longestRecord the longest job record (header, headers and payload) a claim hands over;
     *     a longer one goes to the dead set unread
     */
    public RedisJobStore(RedissonClient redisson, String prefix, int longestRecord) {
        this(redisson, prefix, longestRecord, partition -> ReplicaConfirmation.NONE);
    }

    /**
     * @param confirmations per partition published to, how many replicas must confirm a publish before it
     *     returns
     */
    public RedisJobStore(RedissonClient redisson, String prefix, int longestRecord,
            Function<Partition, ReplicaConfirmation> confirmations) {
        this(redisson, prefix, longestRecord, confirmations, Map.of());
    }

    /**
     * @param bridgedLists per queue that bridges a Redisson {@code RDelayedQueue} (by name: such a queue has
     *     one partition, named as the queue), the name of its target list: the queue's {@link #stats} then
     *     count that queue's elements too
     * @throws RequestMemo.SettingsNotCovered when the client's timeout and retry settings let it resend
     *     a request later than a request memo can cover
     */
    public RedisJobStore(RedissonClient redisson, String prefix, int longestRecord,
            Function<Partition, ReplicaConfirmation> confirmations, Map<String, String> bridgedLists) {
        this.bridgedLists = Map.copyOf(bridgedLists);
        this.redissonQueues = new RedissonQueueStore(redisson, prefix);
        this.redisson = redisson;
        this.prefix = prefix;
        this.script = redisson.getScript(StringCodec.INSTANCE);
        this.longestRecord = longestRecord;
        this.reads = new QueueReads(script, prefix, this.bridgedLists, redissonQueues);
        this.leases = new ConsumerLeases(prefix, script, reads);
        this.deadJobs = new DeadJobs(script, prefix, partition -> stats(partition).dead());
        this.memo = RequestMemo.forClient(redisson);
        long memoMs = memo.lifetimeMs(0);
        this.publishCalls = new PublishCalls(redisson, script, memo, confirmations);
        this.claimScript = LuaScript.load(Script.CLAIM).withMemo(memoMs);
        this.cancelScript = CANCEL.withMemo(memoMs);
    }

    /**
     * How long the memo of a publish, claim or cancel request lives (publishes that wait for
     * {@code confirmation} included): every copy the client may resend finds it.
     * @throws RequestMemo.SettingsNotCovered when no memo allowed can cover the client's settings
     */
    public Duration requestMemoLifetime(ReplicaConfirmation confirmation) {
        return Duration.ofMillis(memo.lifetimeMs(confirmation.timeout().toMillis()));
    }


    public String prefix() {
        return prefix;
    }

    /**
     * Whether Redisson passes script keys through unchanged. A Redisson {@code NameMapper} renames
     * the keys it sees, but not the key names this store hands its scripts in arguments (the active
     * lists' prefix, the wake channel), so with one jobs would be written where nothing reads.
     * Asks the client's {@code NameMapper} when the client is a {@link Redisson} (no Redis call, see
     * {@link #keysCheckNeedsRedis}); else Redis, with a script that returns the key it is given.
     */
    public boolean keysPassUnchanged() {
        String probe = prefix + ":name-mapper-probe";
        if (redisson instanceof Redisson client) {
            return probe.equals(client.getServiceManager().getNameMapper().map(probe));
        }
        String seen = RedisCalls.call("check the key names of", null, () -> script.eval(probe, Mode.READ_WRITE, "return KEYS[1]",
                ReturnType.STRING, List.of(probe)));
        return probe.equals(seen);
    }

    /** Whether {@link #keysPassUnchanged} calls Redis: the client is not a {@link Redisson} (a proxy of one, say). */
    public boolean keysCheckNeedsRedis() {
        return !(redisson instanceof Redisson);
    }

    /** Records the queue name in the registry of known queues, once per store (register-queue.lua). */
    public void registerQueue(QueueName queue) {
        if (!registered.contains(queue)) {
            RedisCalls.await("register", queue.value(), registerQueueAsync(queue));
        }
    }

    /** {@link #registerQueue} without waiting: completes at once when the queue is registered already. */
    public CompletableFuture<Void> registerQueueAsync(QueueName queue) {
        if (registered.contains(queue)) {
            return CompletableFuture.completedFuture(null);
        }
        return REGISTER_QUEUE.<Long>runAsync(script, Mode.READ_WRITE, ReturnType.LONG, List.of(QueueKeys.registry(prefix)),
                queue.value()).handle((reply, failure) -> {
                    if (failure != null) {
                        throw RedisCalls.failure("register", queue.value(), failure);
                    }
                    registered.add(queue);
                    return null;
                });
    }

    /** Names of every queue published to or consumed under this prefix. */
    public Set<String> knownQueues() {
        return reads.knownQueues();
    }

    /**
     * Stores jobs in {@code partition}, routed by its queue being laid out in {@link Partition#count()}
     * partitions.
     * @throws LayoutChangedException when the queue is laid out in another number of partitions now:
     *     nothing was stored
     */
    public List<PublishOutcome> publish(Partition partition, List<NewJob> jobs) {
        return RedisCalls.await("publish to", partition.name(), publishAsync(partition, jobs));
    }

    /**
     * {@link #publish} without waiting: the outcomes, or the failure (a {@link DelayQueueException}, a
     * {@link LayoutChangedException} among them), complete the future on Redisson's I/O thread.
     */
    public CompletableFuture<List<PublishOutcome>> publishAsync(Partition partition, List<NewJob> jobs) {
        return publishCalls.publishAsync(partition, keys(partition), jobs);
    }

    /** Moves up to {@code batch} due jobs to ready and tells when the next one is due. */
    public Transfer transfer(Partition partition, int batch) {
        QueueKeys k = keys(partition);
        List<Object> r = RedisCalls.call("transfer due jobs of", partition.name(), () -> TRANSFER.run(script, Mode.READ_WRITE,
                ReturnType.LIST, k.of(k.delayed(), k.ready(), k.groups(), k.groupsReady(), k.groupHeld()), Integer.toString(batch)));
        return new Transfer(asInt(r.get(0)), asLong(r.get(1)), asLong(r.get(2)));
    }

    /** Deletes a waiting job and its successor, or only the successor of a held job. */
    public boolean cancel(Partition partition, String id) {
        return RedisCalls.await("cancel on", partition.name(), cancelAsync(partition, id));
    }

    /** {@link #cancel} without waiting: the reply completes the future on Redisson's I/O thread. */
    public CompletableFuture<Boolean> cancelAsync(Partition partition, String id) {
        QueueKeys k = keys(partition);
        RequestMemo.Request memo = RequestMemo.request(k);
        return RedisCalls.completed("cancel on", partition.name(), cancelScript.<Long>runAsync(script, Mode.READ_WRITE,
                ReturnType.LONG, k.of(k.jobs(), k.delayed(), k.dead(), k.errors(), k.request(memo), k.successors(), k.claims(),
                        k.groups()), id, memo.field()))
                .thenApply(r -> r == 1L);
    }

    /** Gives a waiting job a new due time: a delay in ms from the server's now, or epoch ms. */
    public boolean reschedule(Partition partition, String id, boolean relative, long time) {
        return RedisCalls.await("reschedule on", partition.name(), rescheduleAsync(partition, id, relative, time));
    }

    /** {@link #reschedule} without waiting: the reply completes the future on Redisson's I/O thread. */
    public CompletableFuture<Boolean> rescheduleAsync(Partition partition, String id, boolean relative, long time) {
        QueueKeys k = keys(partition);
        return RedisCalls.completed("reschedule on", partition.name(), RESCHEDULE.<Long>runAsync(script, Mode.READ_WRITE,
                ReturnType.LONG, k.of(k.jobs(), k.delayed(), k.ready(), k.dead(), k.claims(), k.groups(), k.groupsReady(),
                        k.groupHeld()), id, relative ? "d" : "a", Long.toString(time), k.wakeChannel())).thenApply(r -> r == 1L);
    }

    /** The job and where it is (DELAYED, READY, RUNNING, DEAD), or empty when it does not exist. */
    public Optional<JobInfo> find(Partition partition, String id) {
        return RedisCalls.await("look up in", partition.name(), findAsync(partition, id));
    }

    /** {@link #find} without waiting: the reply completes the future on Redisson's I/O thread. */
    public CompletableFuture<Optional<JobInfo>> findAsync(Partition partition, String id) {
        return reads.findAsync(partition, id);
    }

    /** Every count of the partition, in one call (two: the consumer instances are read first). */
    public QueueStats stats(Partition partition) {
        return reads.stats(partition);
    }

    /** The waiting jobs of the partition per payload version, from a bounded read. */
    public PayloadVersionCounts payloadVersions(Partition partition) {
        return reads.payloadVersions(partition);
    }

    /** The Redisson {@code RDelayedQueue}s that queues bridge (compatibility mode). */
    public RedissonQueueStore redissonQueues() {
        return redissonQueues;
    }

    /** The consumer instances' leases on the queues: heartbeat, and recovery of the jobs of expired ones. */
    public ConsumerLeases leases() {
        return leases;
    }

    /** The dead set of the queues: pages of it, requeue, delete, trim. */
    public DeadJobs deadJobs() {
        return deadJobs;
    }

    /**
     * Subscribes to the due times the partition announces when a job becomes the earliest one.
     * Redisson re-subscribes after a reconnect; the sweep covers the messages lost meanwhile.
     */
    public ChannelSubscription subscribeWake(Partition partition, LongConsumer onEarlierDue) {
        return ChannelSubscription.ofDueTimes(redisson.getTopic(keys(partition).wakeChannel(), StringCodec.INSTANCE),
                partition.name(), onEarlierDue);
    }

    /**
     * The jobs of {@code partition} (of a queue, or the queue itself when it is not partitioned) as
     * its consumers see them: claims and outcomes. Cheap: the view holds no state of its own.
     */
    public RedisPartitionStore partition(Partition partition) {
        return new RedisPartitionStore(partition.name(), keys(partition), script, redisson, claimScript, longestRecord);
    }

    private QueueKeys keys(Partition partition) {
        return new QueueKeys(prefix, partition);
    }

    private static int asInt(Object value) {
        return (int) asLong(value);
    }
}
