package dev.delayjobs.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.delayjobs.queue.Partition;
import dev.delayjobs.store.Claim;
import dev.delayjobs.store.ClaimRequest;
import dev.delayjobs.store.PartitionStore;
import dev.delayjobs.store.StoredJob;
import dev.delayjobs.threads.WorkerThreads;

/**
 * The claimer thread of one partition: reserves free workers and room in its buffer from the
 * {@link QueueSlots}, takes as many ready jobs in one store call (one Redis connection, however
 * many workers), delivers them to the slots (those for the workers reserved start at once on the
 * {@link JobRunner}, the others wait in the buffer), and waits when the queue is empty, paused or rate limited, or the buffer is full. With a
 * buffer, the next claim is on its way while the workers run. One claimer per start of the container.
 *
 * <p>Prefetched jobs are handed back to Redis, with no attempt spent, when the queue is paused, when
 * a rate limit applies (one set at runtime while the buffer held jobs: they are claimed again
 * through the rate log), and when the container stops.
 *
 * <p>A claim or an outcome whose reply is lost (a timeout, a dropped connection) leaves jobs held by
 * this live instance that no worker handles: before its next claim the claimer hands those back and
 * raises its claim epoch, which fences off the claims sent before (one that reaches Redis late takes
 * nothing). It does the same at its first turn (what this instance id held before a restart) and
 * once per lease. Each hand-back names the new epoch, so that a resent copy raises the fence no
 * further; a claim the fence refuses anyway (another start under this instance id raised it) is
 * followed by a hand-back above that fence, not taken for an empty queue. At shutdown the fence is
 * raised above every epoch this claimer used ({@link #stopFence()}), so that a claim still on its
 * way takes nothing.
 */
final class Claimer {

    /** The container's log category, which applications already configure. */
    private static final Log logger = LogFactory.getLog(ListenerContainer.class);
    private static final Duration AWAIT_READY = Duration.ofSeconds(1);

    private final HandlerEndpoint endpoint;
    private final Partition partition;
    private final PartitionStore store;
    private final String instance;
    private final Duration lease;
    private final ClaimGate gate;
    private final JobRunner runner;
    private final PartitionSlots slots;
    /** How many jobs the buffer should hold. */
    private final PrefetchPace pace;
    private final Thread thread;
    private volatile boolean running = true;
    private final ClaimEpochs epochs = new ClaimEpochs();
    /** Whether a refusal by the claim fence was logged: it is logged once per start. */
    private boolean fenceRefusalLogged;
    /** The queue's control changes heard before the last claim, which read the state they made. */
    private long controlChangesSeen;
    /** Whether the last claim said a rate limit applies: claims are then only for free workers. */
    private boolean startsOnly;

    /**
     * @param instance the consumer instance id the claims are made for
     * @param lease the instance's heartbeat lease: what it holds unseen is handed back once per lease
     */
    Claimer(HandlerEndpoint endpoint, Partition partition, PartitionStore store, String instance, Duration lease,
            ClaimGate gate, JobRunner runner, PartitionSlots slots, PrefetchPace pace, WorkerThreads threads) {
        this.endpoint = endpoint;
        this.partition = partition;
        this.store = store;
        this.instance = instance;
        this.lease = lease;
        this.gate = gate;
        this.runner = runner;
        this.slots = slots;
        this.pace = pace;
        this.thread = threads.service("delay-" + partition.name() + "-claimer", this::superviseClaimLoop);
    }

    void start() {
        thread.start();
    }

    /** Stops claiming: interrupts the claimer and waits for it (a claim in flight ends within its timeout). */
    void stop() {
        running = false;
        thread.interrupt();
        try {
            thread.join(AWAIT_READY.plusSeconds(5).toMillis());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * No throwable ends claiming silently while the container says it runs: one that escapes the
     * loop is logged, the jobs this instance holds but no worker handles are handed back at the next
     * claim, and the loop starts again.
     */
    private void superviseClaimLoop() {
        while (running) {
            try {
                claimLoop();
            }
            catch (Throwable ex) {
                if (!running) {
                    return;
                }
                logger.error(partition.describe() + ": the claim loop failed; restarting it in 1s", ex);
                slots.unknown();
                pause(Duration.ofSeconds(1));
            }
        }
    }

    private void claimLoop() {
        long reconciledAt = System.nanoTime();
        while (running) {
            // once per lease, whether or not a failure was seen: anything this instance holds in
            // Redis that no worker handles (a claim whose copy ran unseen, say) goes back to ready
            if (System.nanoTime() - reconciledAt > lease.toNanos()) {
                slots.unknown();
                reconciledAt = System.nanoTime();
            }
            // without a buffer (none configured, a rate limit, or handlers too slow for the pace to
            // ask for one), a claim waits for free workers; with one, for room in it (a free worker
            // takes a waiting job first, so free workers mean an empty buffer)
            int target = slots.capacity() == 0 || startsOnly ? 0 : pace.target();
            QueueSlots.Reservation reserved;
            try {
                reserved = slots.reserve(target, AWAIT_READY);
            }
            catch (InterruptedException ex) {
                break;
            }
            // a full buffer while the queue's control changed since the last claim: a claim of
            // nothing reads the new state, so that a pause or a rate limit hands the prefetched
            // jobs back without waiting for room
            if (target > 0 && reserved.room() == 0 && gate.changes() == controlChangesSeen) {
                continue;
            }
            Claim claim;
            controlChangesSeen = gate.changes();
            try {
                if (slots.takeUnknown()) {
                    releaseAllButHeld();
                }
                claim = store.claim(new ClaimRequest(instance, reserved.jobs(), reserved.workers(), lease, epochs.current(),
                        endpoint.settings().rateLimit(), partition.index(), partition.count(),
                        endpoint.settings().groupConcurrency()));
            }
            catch (RuntimeException ex) {
                slots.unknown();
                JobRunner.startAll(slots.deliver(reserved, List.of()));
                if (running) {
                    logger.warn(partition.describe() + ": claiming failed, retrying in 1s: " + ex.getMessage());
                    pause(Duration.ofSeconds(1));
                }
                continue;
            }
            if (!deliver(claim, reserved)) {
                return;
            }
            if (claim.fenced()) {
                refusedByFence(claim.fence());
                continue;
            }
            startsOnly = claim.startsOnly();
            // all it asked for, or more ready than it reached: a backlog, whose pace the claims measure
            pace.claimed(reserved.jobs(), claim.jobs().size() >= reserved.jobs() || claim.moreReady());
            // paused, or rate limited (a limit set at runtime while the buffer held jobs): the jobs
            // waiting in the buffer go back to ready, to start after the resume, or through the rate log
            if (claim.paused() || claim.startsOnly()) {
                handBackPrefetched();
            }
            if (gate.holdsBack(claim)) {
                gate.await(claim);
            }
            // fewer than asked for: ready was empty when the claim ran (or held only stale ids), so
            // wait for it here rather than spend a claim call that finds nothing; unless the claim
            // left ready jobs it did not reach (groups beyond those a claim visits), which no push
            // will announce: then claim again at once
            else if (claim.jobs().size() < reserved.jobs() && !claim.moreReady() && running) {
                try {
                    store.awaitReady(AWAIT_READY);
                }
                catch (RuntimeException ex) {
                    if (running) {
                        pause(Duration.ofMillis(200));
                    }
                }
            }
        }
    }

    /**
     * Delivers the jobs of {@code claim} to the slots: the first {@code reserved.workers()} start on
     * the workers reserved for them, the others (prefetched) wait in the buffer. Returns false when
     * the workers were shut down (stop() gave up waiting for this thread): the jobs not started
     * left the held jobs, and stop() hands them back.
     */
    private boolean deliver(Claim claim, QueueSlots.Reservation reserved) {
        long claimedAt = System.nanoTime();
        List<StoredJob> jobs = claim.jobs();
        List<Execution> claimed = new ArrayList<>(jobs.size());
        for (int i = 0; i < jobs.size(); i++) {
            StoredJob job = jobs.get(i);
            claimed.add(new Execution(runner, job, claim.serverNow(), claimedAt, i >= reserved.workers(),
                    claim.suspects().contains(job.id())));
        }
        return JobRunner.startAll(slots.deliver(reserved, claimed));
    }

    /**
     * The claim fence refused a claim: its epoch is below {@code fence}, which a hand-back of this
     * claimer did not set (another start under this instance id did, most likely). The next turn hands back what
     * this instance holds and claims above that fence, instead of taking the refusal for an empty queue.
     */
    private void refusedByFence(long fence) {
        epochs.fenceSeen(fence);
        slots.unknown();
        if (!fenceRefusalLogged && running) {
            fenceRefusalLogged = true;
            logger.warn(partition.describe() + ": a claim of epoch " + epochs.current() + " was refused by the claim fence "
                    + fence + " of instance " + instance + ", which this claimer did not set (is another "
                    + "process running under the same delay.instance-id? two must not share one); claiming above it");
        }
    }

    /**
     * Hands back whatever Redis says this instance holds beyond the jobs it still runs or buffers,
     * and raises the claim fence to a new epoch, which the claims from now on carry. A fence found
     * higher (left by an earlier start under this instance id) is cleared by a second hand-back.
     */
    private void releaseAllButHeld() {
        long epoch = epochs.next();
        long fence = store.releaseAllBut(instance, slots.ids(), epoch).fence();
        if (fence > epoch) {
            epochs.fenceSeen(fence);
            epoch = epochs.next();
            store.releaseAllBut(instance, slots.ids(), epoch);
        }
        epochs.claimWith(epoch);
    }

    /**
     * The claim fence to set at shutdown, once claiming stopped: above every epoch this claimer
     * used, so that a claim of it still on its way (one that outlived {@link #stop()}) takes nothing.
     */
    long stopFence() {
        return epochs.stop();
    }

    /**
     * Hands the jobs waiting in the buffer back to ready, with no attempt spent (the queue was paused,
     * or the container stops). Called by the claimer thread, or once it stopped.
     */
    void handBackPrefetched() {
        List<Execution> waiting = slots.drain();
        if (waiting.isEmpty()) {
            return;
        }
        try {
            releaseAllButHeld();
        }
        catch (RuntimeException ex) {
            // handed back before the next claim, or recovered by other instances after the lease
            slots.unknown();
            logger.warn(partition.describe() + ": could not hand back " + waiting.size() + " prefetched job(s): "
                    + ex.getMessage());
        }
    }

    private static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
