package dev.delayjobs.redis;

import static dev.delayjobs.redis.RedisCalls.asLong;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import org.redisson.api.RScript;
import org.redisson.api.RScript.Mode;
import org.redisson.api.RScript.ReturnType;
import org.redisson.api.RedissonClient;

import dev.delayjobs.store.Claim;
import dev.delayjobs.store.ClaimRequest;
import dev.delayjobs.store.PartitionStore;
import dev.delayjobs.store.Recovery;
import dev.delayjobs.store.StoredJob;

/**
 * One partition of a queue (the queue itself when it is not partitioned) as its consumers see it:
 * the scripts of the claimed job's life cycle (claim, start, ack, retry, bury, release), bound to
 * the partition's keys. Obtained from {@link RedisJobStore#partition}; holds no state of its own.
 */
public final class RedisPartitionStore implements PartitionStore {

    private static final LuaScript ACK = LuaScript.load(Script.ACK);
    private static final LuaScript START = LuaScript.load(Script.START);
    private static final LuaScript RETRY = LuaScript.load(Script.RETRY);
    private static final LuaScript BURY = LuaScript.load(Script.BURY);
    private static final LuaScript RELEASE = LuaScript.load(Script.RELEASE);
    private static final LuaScript RELEASE_ALL_BUT = LuaScript.load(Script.RELEASE_ALL_BUT);

    private final String queue;
    private final QueueKeys k;
    private final RScript script;
    private final RedissonClient redisson;
    /** claim.lua with the client's request memo lifetime. */
    private final LuaScript claimScript;
    private final int longestRecord;

    RedisPartitionStore(String queue, QueueKeys keys, RScript script, RedissonClient redisson, LuaScript claimScript,
            int longestRecord) {
        this.queue = queue;
        this.k = keys;
        this.script = script;
        this.redisson = redisson;
        this.claimScript = claimScript;
        this.longestRecord = longestRecord;
    }

    @Override
    public String name() {
        return queue;
    }

    /**
     * Blocks until the ready list of the queue is not empty, or the timeout passes, without taking
     * anything: the head is moved onto itself ({@code BLMOVE ready ready LEFT LEFT}).
     * @param timeout at least one second is waited: Redisson sends the timeout in whole seconds, and
     *     a timeout of 0 would block for good
     */
    @Override
    public boolean awaitReady(Duration timeout) {
        return RedisCalls.awaitNotEmpty(redisson, queue, k.ready(), timeout);
    }

    /**
     * Takes up to {@code max} ready jobs for {@code instance} (claim.lua); each becomes RUNNING and
     * counts an attempt, or PREFETCHED beyond the first {@code start}. Every job is returned as it
     * reads once started. The epoch must be at least the fence set by the instance's last
     * hand-back, else nothing is taken. A job whose record is longer than the store's longest
     * record goes to the dead set unread.
     */
    @Override
    public Claim claim(ClaimRequest request) {
        String instance = request.instance();
        RateLimitArgs limit = RateLimitArgs.of(request);
        RequestMemo.Request memo = RequestMemo.claimRequest();
        List<Object> r = RedisCalls.call("claim from", queue, () -> claimScript.run(script, Mode.READ_WRITE, ReturnType.LIST,
                k.of(k.ready(), k.active(instance), k.jobs(), k.delayed(), k.dead(), k.errors(), k.stats(),
                        k.instances(), k.claimFences(), k.request(memo), k.control(), k.rateLog(),
                        k.claims(), k.groups(), k.groupsReady(), k.groupHeld()),
                Integer.toString(request.max()), instance, Long.toString(request.lease().toMillis()),
                Long.toString(request.epoch()), Integer.toString(longestRecord), limit.permits(), limit.windowMs(),
                Integer.toString(request.partition()), Integer.toString(request.partitions()),
                Integer.toString(request.start()), Integer.toString(request.groupLimit()), memo.field()));
        List<StoredJob> jobs = new ArrayList<>((r.size() - 3) / 4);
        Set<String> suspects = Set.of();
        // per job: id, record, ar, group ('' the default group)
        for (int i = 3; i + 3 < r.size(); i += 4) {
            String id = (String) r.get(i);
            String ar = (String) r.get(i + 2);
            StoredJob job = JobRecords.parse(id, (String) r.get(i + 1), ar);
            jobs.add(job == null ? null : job.inGroup((String) r.get(i + 3)));
            if (JobRecords.isSuspect(ar)) {
                suspects = suspects.isEmpty() ? new HashSet<>() : suspects;
                suspects.add(id);
            }
        }
        long wait = asLong(r.get(1));
        if (wait == -2) {
            return new Claim(asLong(r.get(0)), List.of(), false, 0, false, false, Set.of(), asLong(r.get(2)));
        }
        // flags: 1 starts only, 2 more ready (claim.lua)
        long flags = asLong(r.get(2));
        return new Claim(asLong(r.get(0)), jobs, wait == -1, Math.max(0, wait), (flags & 1) != 0, (flags & 2) != 0, suspects, 0);
    }

    /** claim.lua's rate limit arguments: "0" for none. */
    private record RateLimitArgs(String permits, String windowMs) {

        static RateLimitArgs of(ClaimRequest request) {
            var limit = request.configuredLimit();
            return limit == null ? new RateLimitArgs("0", "0")
                    : new RateLimitArgs(Integer.toString(limit.permits()), Long.toString(limit.window().toMillis()));
        }
    }

    /**
     * A mark that never arrives costs nothing but precision: the outcome of the job counts the
     * attempt anyway, and a crash hands the job back as suspect (see start.lua).
     */
    @Override
    public CompletableFuture<Integer> markStartedAsync(List<StoredJob> jobs) {
        return START.<Long>runAsync(script, Mode.READ_WRITE, ReturnType.LONG, k.of(k.claims()), claimArgs(jobs))
                .thenApply(Long::intValue);
    }

    /** False also when the job was recovered meanwhile, after this instance lost its lease. */
    @Override
    public boolean markStarted(StoredJob job) {
        return RedisCalls.await("mark a start on", queue, markStartedAsync(List.of(job))) == 1;
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

    /** The successor of each job, if any, takes its key. */
    @Override
    public int ack(String instance, List<StoredJob> jobs) {
        Object[] claims = claimArgs(jobs);
        Object[] args = new Object[claims.length + 1];
        args[0] = k.wakeChannel();
        System.arraycopy(claims, 0, args, 1, claims.length);
        Long done = RedisCalls.call("ack on", queue, () -> ACK.run(script, Mode.READ_WRITE, ReturnType.LONG,
                k.of(k.active(instance), k.jobs(), k.errors(), k.stats(), k.delayed(), k.ready(), k.successors(), k.claims(),
                        k.groups(), k.groupsReady(), k.groupHeld(), k.schedules(), k.scheduleOutcomes()), args));
        return done.intValue();
    }

    /** A replacing successor of the job takes its key instead. */
    @Override
    public boolean retry(String instance, StoredJob job, String error, Duration backoff) {
        Long r = RedisCalls.call("retry on", queue, () -> RETRY.run(script, Mode.READ_WRITE, ReturnType.LONG,
                k.of(k.active(instance), k.jobs(), k.delayed(), k.errors(), k.stats(), k.ready(), k.successors(), k.claims(),
                        k.groupsReady(), k.groupHeld(), k.schedules(), k.scheduleOutcomes(), k.groups()),
                job.id(), job.gen(), error, Long.toString(backoff.toMillis()), k.wakeChannel(),
                Integer.toString(job.attempts())));
        return r == 1L;
    }

    /** When the job has a successor, that takes its key. */
    @Override
    public boolean bury(String instance, StoredJob job, String error) {
        Long r = RedisCalls.call("bury on", queue, () -> BURY.run(script, Mode.READ_WRITE, ReturnType.LONG,
                k.of(k.active(instance), k.jobs(), k.dead(), k.errors(), k.stats(), k.delayed(), k.ready(), k.successors(), k.claims(),
                        k.groupsReady(), k.groupHeld(), k.schedules(), k.scheduleOutcomes(), k.groups()),
                job.id(), job.gen(), error, Integer.toString(job.attempts()), k.wakeChannel()));
        return r == 1L;
    }

    /**
     * The fence is kept for a day ({@link RedisJobStore#FORGOTTEN_FENCE_KEPT}); a start under the
     * same instance id claims above it.
     */
    @Override
    public Recovery release(String instance, long fence) {
        return release(instance, fence, RedisJobStore.FORGOTTEN_FENCE_KEPT);
    }

    /** {@link #release(String, long)}, keeping the forgotten fence for {@code fenceKept}. */
    Recovery release(String instance, long fence, Duration fenceKept) {
        List<Object> r = RedisCalls.call("release jobs of", queue, () -> RELEASE.run(script, Mode.READ_WRITE, ReturnType.LIST,
                k.of(k.instances(), k.workers(), k.ready(), k.claimFences(), k.forgottenFences(), k.claims(), k.active(instance),
                        k.groupsReady(), k.groupHeld(), k.groups()),
                instance, Long.toString(fence), Long.toString(fenceKept.toMillis())));
        return new Recovery(asLong(r.get(0)), 0, 1, asLong(r.get(1)));
    }

    /**
     * For the jobs held but no longer handled (a claim or an ack whose reply was lost): a lost claim
     * may still be waiting to run in Redis, and from now on claims of a lower epoch take nothing.
     * The caller names the new epoch (above the one it claimed with), so that a resent copy of this
     * call raises the fence no further. The returned fence is above {@code fence} when an earlier
     * process under this instance id left it higher (then claim above it after another release).
     * With no {@code inFlight}, this is how a starting container takes over what its instance id
     * held before (a restart under a fixed {@code delay.instance-id}, or stop then start).
     */
    @Override
    public Recovery releaseAllBut(String instance, Collection<String> inFlight, long fence) {
        List<Object> args = new ArrayList<>(2 + inFlight.size());
        args.add(instance);
        args.add(Long.toString(fence));
        args.addAll(inFlight);
        List<Object> r = RedisCalls.call("release jobs of", queue, () -> RELEASE_ALL_BUT.run(script, Mode.READ_WRITE,
                ReturnType.LIST, k.of(k.ready(), k.claimFences(), k.forgottenFences(), k.claims(), k.active(instance), k.groupsReady(),
                        k.groupHeld(), k.groups()),
                args.toArray()));
        return new Recovery(asLong(r.get(0)), 0, 0, asLong(r.get(1)));
    }
}
