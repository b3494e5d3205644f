package dev.delayjobs.redis;

import static dev.delayjobs.redis.RedisCalls.asLong;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RScript;
import org.redisson.api.RScript.Mode;
import org.redisson.api.RScript.ReturnType;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import dev.delayjobs.DelayQueueException;
import dev.delayjobs.JobInfo;
import dev.delayjobs.RateLimit;

/**
 * The data model of the delay queues: the job life cycle, and through {@link #deadJobs()} the dead
 * set. With {@link QueueControls} (pause, rate limits), the only classes that know a key name or run
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

    private static final LuaScript PUBLISH = LuaScript.load(Script.PUBLISH);
    private static final LuaScript TRANSFER = LuaScript.load(Script.TRANSFER);
    private static final LuaScript CLAIM = LuaScript.load(Script.CLAIM);
    private static final LuaScript ACK = LuaScript.load(Script.ACK);
    private static final LuaScript START = LuaScript.load(Script.START);
    private static final LuaScript RETRY = LuaScript.load(Script.RETRY);
    private static final LuaScript BURY = LuaScript.load(Script.BURY);
    private static final LuaScript HEARTBEAT = LuaScript.load(Script.HEARTBEAT);
    private static final LuaScript RECOVER_EXPIRED = LuaScript.load(Script.RECOVER_EXPIRED);
    private static final LuaScript RELEASE = LuaScript.load(Script.RELEASE);
    private static final LuaScript RELEASE_ALL_BUT = LuaScript.load(Script.RELEASE_ALL_BUT);
    private static final LuaScript CANCEL = LuaScript.load(Script.CANCEL);
    private static final LuaScript RESCHEDULE = LuaScript.load(Script.RESCHEDULE);
    private static final LuaScript REGISTER_QUEUE = LuaScript.load(Script.REGISTER_QUEUE);
    /**
     * How long the claim fence of a forgotten instance (stopped, or its lease ran out) is kept: far
     * longer than any claim of it can take to reach Redis, and short enough that the fences of
     * instance ids that never return do not pile up.
     */
    static final Duration FORGOTTEN_FENCE_KEPT = Duration.ofDays(1);
    /**
     * The most held ids one recover-expired.lua call goes through for expired instances: their claim entries
     * are a few dozen bytes each, so a call stays in the low milliseconds.
     */
    static final int RECOVERED_PER_CALL = 5_000;
    /** publish.lua's refusal of jobs routed by another partition count than the queue's. */
    private static final Pattern LAYOUT_ERROR = Pattern.compile("LAYOUT (\\d+)");

    private final RedissonClient redisson;
    private final String prefix;
    private final RScript script;
    private final int longestRecord;
    private final Set<String> registered = ConcurrentHashMap.newKeySet();
    private final Function<String, ReplicaConfirmation> confirmations;
    private final DeadJobs deadJobs;
    private final Map<String, String> bridgedLists;
    private final RedissonQueueStore redissonQueues;
    private final QueueReads reads;
    /** How long request memos live under the client's timeout and retry settings. */
    private final RequestMemo memo;
    /** The scripts that leave request memos, with the client's memo lifetime. */
    private final LuaScript publishScript;
    private final LuaScript claimScript;
    private final LuaScript cancelScript;
    /** The publish script by the replica wait of confirmed publishes, which each resent copy waits too. */
    private final Map<Duration, LuaScript> confirmedPublishScripts = new ConcurrentHashMap<>();

    public RedisJobStore(RedissonClient redisson, String prefix) {
        this(redisson, prefix, Integer.MAX_VALUE);
    }

    /**
     * @param longestRecord the longest job record (header, headers and payload) a claim hands over;
     *     a longer one goes to the dead set unread
     */
    public RedisJobStore(RedissonClient redisson, String prefix, int longestRecord) {
        this(redisson, prefix, longestRecord, queue -> ReplicaConfirmation.NONE);
    }

    /**
     * @param confirmations per queue, how many replicas must confirm a publish before it returns
     */
    public RedisJobStore(RedissonClient redisson, String prefix, int longestRecord,
            Function<String, ReplicaConfirmation> confirmations) {
        this(redisson, prefix, longestRecord, confirmations, Map.of());
    }

    /**
     * @param bridgedLists per queue that bridges a Redisson {@code RDelayedQueue}, the name of its
     *     target list: the queue's {@link #stats} then count that queue's elements too
     * @throws RequestMemo.SettingsNotCovered when the client's timeout and retry settings let it resend
     *     a request later than a request memo can cover
     */
    public RedisJobStore(RedissonClient redisson, String prefix, int longestRecord,
            Function<String, ReplicaConfirmation> confirmations, Map<String, String> bridgedLists) {
        this.bridgedLists = Map.copyOf(bridgedLists);
        this.redissonQueues = new RedissonQueueStore(redisson, prefix);
        this.confirmations = confirmations;
        this.redisson = redisson;
        this.prefix = prefix;
        this.script = redisson.getScript(StringCodec.INSTANCE);
        this.longestRecord = longestRecord;
        this.reads = new QueueReads(script, prefix, this.bridgedLists, redissonQueues);
        this.deadJobs = new DeadJobs(script, prefix, queue -> stats(queue).dead());
        this.memo = RequestMemo.forClient(redisson);
        long memoMs = memo.lifetimeMs(0);
        this.publishScript = PUBLISH.withMemo(memoMs);
        this.claimScript = CLAIM.withMemo(memoMs);
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

    private LuaScript publishScript(ReplicaConfirmation confirmation) {
        return confirmedPublishScripts.computeIfAbsent(confirmation.timeout(),
                wait -> PUBLISH.withMemo(memo.lifetimeMs(wait.toMillis())));
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
    public void registerQueue(String queue) {
        if (!registered.contains(queue)) {
            RedisCalls.call("register", queue, () -> REGISTER_QUEUE.run(script, Mode.READ_WRITE, ReturnType.LONG,
                    List.of(QueueKeys.registry(prefix)), queue));
            registered.add(queue);
        }
    }

    /** Names of every queue published to or consumed under this prefix. */
    public Set<String> knownQueues() {
        return reads.knownQueues();
    }

    /** Stores jobs in an unpartitioned queue. */
    public List<PublishOutcome> publish(String queue, List<NewJob> jobs) {
        return publish(queue, 1, jobs);
    }

    /**
     * Stores jobs in {@code queue}, an unpartitioned queue or one partition of a queue laid out in
     * {@code partitions} partitions.
     * @throws LayoutChangedException when the queue is laid out in another number of partitions now:
     *     nothing was stored
     */
    public List<PublishOutcome> publish(String queue, int partitions, List<NewJob> jobs) {
        return RedisCalls.await("publish to", queue, publishAsync(queue, partitions, jobs));
    }

    /**
     * {@link #publish(String, int, List)} without waiting: the outcomes, or the failure (a
     * {@link DelayQueueException}, a {@link LayoutChangedException} among them), complete the
     * future on Redisson's I/O thread.
     */
    public CompletableFuture<List<PublishOutcome>> publishAsync(String queue, int partitions, List<NewJob> jobs) {
        QueueKeys k = keys(queue);
        Object[] args = new Object[3 + jobs.size() * 5];
        args[0] = k.wakeChannel();
        args[1] = Integer.toString(jobs.size());
        args[2] = Integer.toString(partitions);
        int i = 3;
        for (NewJob job : jobs) {
            args[i++] = job.id();
            args[i++] = job.relative() ? "d" : "a";
            args[i++] = Long.toString(job.time());
            args[i++] = job.generatedId() ? "n" : job.replaceExisting() ? "1" : "0";
            args[i++] = job.payload();
        }
        List<Object> keyList = k.of(k.jobs(), k.delayed(), k.ready(), k.stats(), k.dead(), k.errors(), k.request(requestId()),
                k.control(), k.successors(), k.claims());
        ReplicaConfirmation confirmation = confirmations.apply(queue);
        CompletableFuture<List<Object>> reply;
        if (confirmation.replicas() == 0) {
            reply = publishScript.runAsync(script, Mode.READ_WRITE, ReturnType.LIST, keyList, args);
        }
        else {
            reply = publishScript(confirmation).<List<Object>>runConfirmedAsync(redisson, Mode.READ_WRITE, ReturnType.LIST, keyList,
                    confirmation, args).thenApply(confirmed -> confirmedReply(queue, jobs.size(), confirmation, confirmed));
        }
        return reply.handle((result, failure) -> {
            if (failure != null) {
                throw layoutChanged(queue, RedisCalls.failure("publish to", queue, failure));
            }
            return outcomes(result);
        });
    }

    private static List<Object> confirmedReply(String queue, int jobs, ReplicaConfirmation confirmation,
            LuaScript.Confirmed<List<Object>> confirmed) {
        if (confirmed.replicas() < confirmation.replicas()) {
            throw new DelayQueueException("Queue '" + queue + "': " + jobs + " job(s) written on the master, "
                    + "but only " + confirmed.replicas() + " of " + confirmation.replicas() + " replica(s) confirmed them "
                    + "within " + confirmation.timeout().toMillis() + " ms (delay.publisher.confirm-replicas); a "
                    + "failover now could lose them. Publishing them again with the same business keys is safe (an "
                    + "existing job is kept, not doubled); a job published without a key would be published twice");
        }
        return confirmed.reply();
    }

    private static List<PublishOutcome> outcomes(List<Object> statuses) {
        List<PublishOutcome> outcomes = new ArrayList<>(statuses.size());
        for (Object status : statuses) {
            outcomes.add(switch (((Number) status).intValue()) {
                case 1 -> PublishOutcome.CREATED;
                case 2 -> PublishOutcome.REPLACED;
                case 3 -> PublishOutcome.QUEUED_AS_SUCCESSOR;
                default -> PublishOutcome.KEPT_EXISTING;
            });
        }
        return outcomes;
    }

    /** The {@link LayoutChangedException} that {@code ex} reports (publish.lua's 'LAYOUT n' error), else {@code ex}. */
    private static DelayQueueException layoutChanged(String queue, DelayQueueException ex) {
        for (Throwable t = ex; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String message = String.valueOf(t.getMessage());
            Matcher count = LAYOUT_ERROR.matcher(message);
            if (count.find()) {
                return new LayoutChangedException(queue, Integer.parseInt(count.group(1)));
            }
        }
        return ex;
    }

    /** Moves up to {@code batch} due jobs to ready and tells when the next one is due. */
    public Transfer transfer(String queue, int batch) {
        QueueKeys k = keys(queue);
        List<Object> r = RedisCalls.call("transfer due jobs of", queue, () -> TRANSFER.run(script, Mode.READ_WRITE, ReturnType.LIST,
                k.of(k.delayed(), k.ready()), Integer.toString(batch)));
        return new Transfer(asInt(r.get(0)), asLong(r.get(1)), asLong(r.get(2)));
    }

    /**
     * Blocks until the ready list of the queue is not empty, or the timeout passes, without taking
     * anything: the head is moved onto itself ({@code BLMOVE ready ready LEFT LEFT}).
     * @param timeout at least one second is waited: Redisson sends the timeout in whole seconds, and
     *     a timeout of 0 would block for good
     * @return whether jobs are ready
     */
    public boolean awaitReady(String queue, Duration timeout) {
        return RedisCalls.awaitNotEmpty(redisson, queue, keys(queue).ready(), timeout);
    }

    /**
     * Takes up to {@code max} ready jobs for {@code instance}; each becomes RUNNING and counts an
     * attempt. {@code epoch} must be at least the fence set by the instance's last
     * {@link #releaseAllBut} or {@link #release}, or the claim takes nothing and says so
     * ({@link Claim#fenced()}): a claim whose reply was lost, or whose claimer was stopped, and that
     * reaches Redis only after that release must not take jobs no worker will run. A paused queue
     * gives nothing; a rate limit (the runtime one, else {@code configuredLimit}) caps what starts.
     */
    public Claim claim(String queue, String instance, int max, Duration lease, long epoch) {
        return claim(queue, instance, max, lease, epoch, null);
    }

    /** {@link #claim(String, String, int, Duration, long)} under {@code configuredLimit} unless a runtime one is set. */
    public Claim claim(String queue, String instance, int max, Duration lease, long epoch,
            @Nullable RateLimit configuredLimit) {
        return claim(queue, instance, max, lease, epoch, configuredLimit, 0, 1);
    }

    /**
     * {@link #claim(String, String, int, Duration, long, RateLimit)} from partition {@code partition}
     * of {@code partitions}, which lets its share of the queue's rate limit start.
     */
    public Claim claim(String queue, String instance, int max, Duration lease, long epoch,
            @Nullable RateLimit configuredLimit, int partition, int partitions) {
        return claim(queue, instance, max, max, lease, epoch, configuredLimit, partition, partitions);
    }

    /**
     * {@link #claim(String, String, int, Duration, long, RateLimit, int, int)} with prefetch: of the
     * jobs taken, the first {@code start} become RUNNING and count an attempt, the others become
     * PREFETCHED (no attempt) until {@link #markStartedAsync} says a worker started them. Every job
     * is returned as it reads once started. Under a rate limit only {@code start} jobs are taken.
     */
    public Claim claim(String queue, String instance, int max, int start, Duration lease, long epoch,
            @Nullable RateLimit configuredLimit, int partition, int partitions) {
        QueueKeys k = keys(queue);
        List<Object> r = RedisCalls.call("claim from", queue, () -> claimScript.run(script, Mode.READ_WRITE, ReturnType.LIST,
                k.of(k.ready(), k.active(instance), k.jobs(), k.delayed(), k.dead(), k.errors(), k.stats(),
                        k.instances(), k.claimFences(), k.request(requestId()), k.control(), k.rateLog(), k.claims()),
                Integer.toString(max), instance, Long.toString(lease.toMillis()), Long.toString(epoch),
                Integer.toString(longestRecord),
                configuredLimit == null ? "0" : Integer.toString(configuredLimit.permits()),
                configuredLimit == null ? "0" : Long.toString(configuredLimit.window().toMillis()),
                Integer.toString(partition), Integer.toString(partitions), Integer.toString(start)));
        List<StoredJob> jobs = new ArrayList<>((r.size() - 3) / 3);
        Set<String> suspects = Set.of();
        for (int i = 3; i + 2 < r.size(); i += 3) {
            String id = (String) r.get(i);
            String ar = (String) r.get(i + 2);
            jobs.add(StoredJob.parse(id, (String) r.get(i + 1), ar));
            if (StoredJob.isSuspect(ar)) {
                suspects = suspects.isEmpty() ? new HashSet<>() : suspects;
                suspects.add(id);
            }
        }
        long wait = asLong(r.get(1));
        if (wait == -2) {
            return new Claim(asLong(r.get(0)), List.of(), false, 0, false, Set.of(), asLong(r.get(2)));
        }
        return new Claim(asLong(r.get(0)), jobs, wait == -1, Math.max(0, wait), asLong(r.get(2)) == 1, suspects, 0);
    }

    /**
     * Records that workers of {@code instance} started these PREFETCHED jobs, without waiting: the
     * future completes with how many were marked (a job acked, retried or recovered meanwhile is
     * not), or with the failure. A mark that never arrives costs nothing but precision: the outcome
     * of the job counts the attempt anyway, and a crash hands the job back as suspect (see start.lua).
     */
    public CompletableFuture<Integer> markStartedAsync(String queue, List<StoredJob> jobs) {
        QueueKeys k = keys(queue);
        return START.<Long>runAsync(script, Mode.READ_WRITE, ReturnType.LONG, k.of(k.claims()), claimArgs(jobs))
                .thenApply(Long::intValue);
    }

    /**
     * Records that a worker of this instance starts the PREFETCHED {@code job}, and waits for it:
     * returns false when the job is no longer PREFETCHED under this claim (recovered meanwhile,
     * after this instance lost its lease), and then must not run.
     */
    public boolean markStarted(String queue, StoredJob job) {
        return RedisCalls.await("mark a start on", queue, markStartedAsync(queue, List.of(job))) == 1;
    }

    /** id, gen, attempt of each job: the claims being finished or started. */
    private static Object[] claimArgs(List<StoredJob> jobs) {
        Object[] args = new Object[jobs.size() * 3];
        for (int i = 0; i < jobs.size(); i++) {
            args[3 * i] = jobs.get(i).id();
            args[3 * i + 1] = jobs.get(i).gen();
            args[3 * i + 2] = Integer.toString(jobs.get(i).attempts());
        }
        return args;
    }

    /** Deletes jobs whose handler succeeded; the successor of each, if any, takes its key. */
    public int ack(String queue, String instance, List<StoredJob> jobs) {
        QueueKeys k = keys(queue);
        Object[] claims = claimArgs(jobs);
        Object[] args = new Object[claims.length + 1];
        args[0] = k.wakeChannel();
        System.arraycopy(claims, 0, args, 1, claims.length);
        Long done = RedisCalls.call("ack on", queue, () -> ACK.run(script, Mode.READ_WRITE, ReturnType.LONG,
                k.of(k.active(instance), k.jobs(), k.errors(), k.stats(), k.delayed(), k.ready(), k.successors(), k.claims()), args));
        return done.intValue();
    }

    /** Schedules a failed job again after {@code backoff}, or lets its replacing successor take its key. */
    public boolean retry(String queue, String instance, StoredJob job, String error, Duration backoff) {
        QueueKeys k = keys(queue);
        Long r = RedisCalls.call("retry on", queue, () -> RETRY.run(script, Mode.READ_WRITE, ReturnType.LONG,
                k.of(k.active(instance), k.jobs(), k.delayed(), k.errors(), k.stats(), k.ready(), k.successors(), k.claims()),
                job.id(), job.gen(), error, Long.toString(backoff.toMillis()), k.wakeChannel(),
                Integer.toString(job.attempts())));
        return r == 1L;
    }

    /** Moves a claimed job to the dead set with {@code error}, or, when it has a successor, lets that take its key. */
    public boolean bury(String queue, String instance, StoredJob job, String error) {
        QueueKeys k = keys(queue);
        Long r = RedisCalls.call("bury on", queue, () -> BURY.run(script, Mode.READ_WRITE, ReturnType.LONG,
                k.of(k.active(instance), k.jobs(), k.dead(), k.errors(), k.stats(), k.delayed(), k.ready(), k.successors(), k.claims()),
                job.id(), job.gen(), error, Integer.toString(job.attempts()), k.wakeChannel()));
        return r == 1L;
    }

    /** Renews the lease of {@code instance} on the queue. */
    public void heartbeat(String queue, String instance, Duration lease, int workers) {
        QueueKeys k = keys(queue);
        RedisCalls.call("heartbeat on", queue, () -> HEARTBEAT.run(script, Mode.READ_WRITE, ReturnType.LONG,
                k.of(k.instances(), k.workers()), instance, Long.toString(lease.toMillis()), Integer.toString(workers)));
    }

    /**
     * Sends the jobs of instances whose lease expired back to ready (or dead, past {@code maxAttempts}),
     * in calls that each go through at most {@value #RECOVERED_PER_CALL} held ids: after a Redis pause
     * longer than the lease every instance expires at once, and one call for all of them would hold
     * Redis for as long as they hold jobs.
     */
    public Recovery recoverExpired(String queue, int maxAttempts) {
        return recoverExpired(queue, maxAttempts, RECOVERED_PER_CALL);
    }

    Recovery recoverExpired(String queue, int maxAttempts, int heldIdsPerCall) {
        long requeued = 0;
        long buried = 0;
        long instances = 0;
        boolean more = true;
        while (more) {
            // the sweep's common case, no lease run out, costs this one read and no script that writes
            List<String> expired = reads.consumerInstances(queue, true);
            if (expired.isEmpty()) {
                break;
            }
            QueueKeys k = keys(queue);
            List<Object> keys = new ArrayList<>(k.of(k.instances(), k.workers(), k.ready(), k.jobs(), k.dead(), k.errors(),
                    k.stats(), k.claimFences(), k.forgottenFences(), k.delayed(), k.successors(), k.claims()));
            keys.addAll(QueueReads.activeLists(k, expired));
            List<Object> r = RedisCalls.call("recover jobs of", queue, () -> RECOVER_EXPIRED.run(script, Mode.READ_WRITE,
                    ReturnType.LIST, keys, k.activePrefix(), Integer.toString(maxAttempts),
                    Long.toString(FORGOTTEN_FENCE_KEPT.toMillis()), Integer.toString(heldIdsPerCall)));
            requeued += asLong(r.get(0));
            buried += asLong(r.get(1));
            instances += asLong(r.get(2));
            more = asLong(r.get(3)) == 1;
        }
        return new Recovery(requeued, buried, instances, 0);
    }

    /**
     * Hands every job {@code instance} holds back to ready at once and forgets the instance
     * (shutdown), raising its claim fence to {@code fence}: a claim of its stopped claimer that
     * reaches Redis later (epoch below {@code fence}) takes nothing. The fence is kept for a day
     * ({@link #FORGOTTEN_FENCE_KEPT}); a start under the same instance id claims above it.
     */
    public Recovery release(String queue, String instance, long fence) {
        return release(queue, instance, fence, FORGOTTEN_FENCE_KEPT);
    }

    /** {@link #release(String, String, long)}, keeping the forgotten fence for {@code fenceKept}. */
    Recovery release(String queue, String instance, long fence, Duration fenceKept) {
        QueueKeys k = keys(queue);
        List<Object> r = RedisCalls.call("release jobs of", queue, () -> RELEASE.run(script, Mode.READ_WRITE, ReturnType.LIST,
                k.of(k.instances(), k.workers(), k.ready(), k.claimFences(), k.forgottenFences(), k.claims(), k.active(instance)),
                instance, Long.toString(fence), Long.toString(fenceKept.toMillis())));
        return new Recovery(asLong(r.get(0)), 0, 1, asLong(r.get(1)));
    }

    /**
     * Hands back the jobs {@code instance} holds but no longer handles (a claim or an ack whose reply
     * was lost), keeping those in {@code inFlight}, and raises the instance's claim fence to
     * {@code fence}: a lost claim may still be waiting to run in Redis, and from now on claims of a
     * lower epoch take nothing. The caller names the new epoch (above the one it claimed with), so
     * that a resent copy of this call raises the fence no further. The fence never falls: the
     * returned {@link Recovery#fence()} says where it is, above {@code fence} when an earlier process
     * under this instance id left it higher (then claim above it after another release). With no
     * {@code inFlight}, this is how a starting container takes over what its instance id held before
     * (a restart under a fixed {@code delay.instance-id}, or stop then start).
     */
    public Recovery releaseAllBut(String queue, String instance, Collection<String> inFlight, long fence) {
        QueueKeys k = keys(queue);
        List<Object> args = new ArrayList<>(2 + inFlight.size());
        args.add(instance);
        args.add(Long.toString(fence));
        args.addAll(inFlight);
        List<Object> r = RedisCalls.call("release jobs of", queue, () -> RELEASE_ALL_BUT.run(script, Mode.READ_WRITE,
                ReturnType.LIST, k.of(k.ready(), k.claimFences(), k.forgottenFences(), k.claims(), k.active(instance)),
                args.toArray()));
        return new Recovery(asLong(r.get(0)), 0, 0, asLong(r.get(1)));
    }

    /** Deletes a waiting job and its successor, or only the successor of a held job. */
    public boolean cancel(String queue, String id) {
        QueueKeys k = keys(queue);
        Long r = RedisCalls.call("cancel on", queue, () -> cancelScript.run(script, Mode.READ_WRITE, ReturnType.LONG,
                k.of(k.jobs(), k.delayed(), k.dead(), k.errors(), k.request(requestId()), k.successors(), k.claims()), id));
        return r == 1L;
    }

    /**
     * Names one publish, claim or cancel call. Redisson resends a script whose reply timed out, and
     * every copy runs once Redis answers again: the copies carry the same id, so only the first acts.
     */
    private static String requestId() {
        byte[] bytes = new byte[12];
        ThreadLocalRandom.current().nextBytes(bytes);
        return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** Gives a waiting job a new due time: a delay in ms from the server's now, or epoch ms. */
    public boolean reschedule(String queue, String id, boolean relative, long time) {
        QueueKeys k = keys(queue);
        Long r = RedisCalls.call("reschedule on", queue, () -> RESCHEDULE.run(script, Mode.READ_WRITE, ReturnType.LONG,
                k.of(k.jobs(), k.delayed(), k.ready(), k.dead(), k.claims()), id, relative ? "d" : "a", Long.toString(time),
                k.wakeChannel()));
        return r == 1L;
    }

    /** The job and where it is (DELAYED, READY, RUNNING, DEAD), or empty when it does not exist. */
    public Optional<JobInfo> find(String queue, String id) {
        return reads.find(queue, id);
    }

    /** Every count of the queue, in one call (two: the consumer instances are read first). */
    public QueueStats stats(String queue) {
        return reads.stats(queue);
    }

    /** The Redisson {@code RDelayedQueue}s that queues bridge (compatibility mode). */
    public RedissonQueueStore redissonQueues() {
        return redissonQueues;
    }

    /** The dead set of the queues: pages of it, requeue, delete, trim. */
    public DeadJobs deadJobs() {
        return deadJobs;
    }

    /**
     * Subscribes to the due times the queue announces when a job becomes the earliest one.
     * Redisson re-subscribes after a reconnect; the sweep covers the messages lost meanwhile.
     */
    public ChannelSubscription subscribeWake(String queue, LongConsumer onEarlierDue) {
        RTopic topic = redisson.getTopic(keys(queue).wakeChannel(), StringCodec.INSTANCE);
        int listenerId = RedisCalls.call("subscribe to", queue, () -> topic.addListener(String.class, (channel, message) -> {
            try {
                onEarlierDue.accept(Long.parseLong(message));
            }
            catch (NumberFormatException ignored) {
                // not one of ours; the sweep keeps the queue moving whatever is published here
            }
        }));
        return new ChannelSubscription(topic, listenerId);
    }

    private QueueKeys keys(String queue) {
        return new QueueKeys(prefix, queue);
    }

    private static int asInt(Object value) {
        return (int) asLong(value);
    }
}
