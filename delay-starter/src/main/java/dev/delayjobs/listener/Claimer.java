package dev.delayjobs.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.delayjobs.store.Claim;
import dev.delayjobs.store.ClaimRequest;
import dev.delayjobs.store.PartitionStore;
import dev.delayjobs.store.StoredJob;
import dev.delayjobs.timer.QueueWatchdog;

/**
 * The claimer thread of one queue: takes as many ready jobs as there are free workers and room in
 * its {@link PrefetchBuffer} in one script call (one Redis connection, however many workers), hands
 * them to the {@link JobRunner} (those for free workers start at once, the others wait in the
 * buffer), and waits when the queue is empty, paused or rate limited, or the buffer is full. With a
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
    private final ConsumedPartition partition;
    private final PartitionStore store;
    private final QueueWatchdog watchdog;
    private final ClaimGate gate;
    private final JobRunner runner;
    private final HeldJobs held;
    private final PrefetchBuffer buffer;
    private final Thread thread;
    private volatile boolean running = true;
    private final ClaimEpochs epochs = new ClaimEpochs();
    /** Whether a refusal by the claim fence was logged: it is logged once per start. */
    private boolean fenceRefusalLogged;
    /** The queue's control changes heard before the last claim, which read the state they made. */
    private long controlChangesSeen;
    /** Whether the last claim said a rate limit applies: claims are then only for free workers. */
    private boolean startsOnly;

    Claimer(HandlerEndpoint endpoint, ConsumedPartition partition, PartitionStore store, QueueWatchdog watchdog, ClaimGate gate,
            JobRunner runner, HeldJobs held, WorkerThreads threads) {
        this.endpoint = endpoint;
        this.partition = partition;
        this.store = store;
        this.watchdog = watchdog;
        this.gate = gate;
        this.runner = runner;
        this.held = held;
        this.buffer = runner.buffer();
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
                held.markUnknown();
                pause(Duration.ofSeconds(1));
            }
        }
    }

    private void claimLoop() {
        Duration lease = watchdog.settings().heartbeatLease();
        long reconciledAt = System.nanoTime();
        while (running) {
            // once per lease, whether or not a failure was seen: anything this instance holds in
            // Redis that no worker handles (a claim whose copy ran unseen, say) goes back to ready
            if (System.nanoTime() - reconciledAt > lease.toNanos()) {
                held.markUnknown();
                reconciledAt = System.nanoTime();
            }
            // without a buffer (none configured, a rate limit, or handlers too slow for the pace to
            // ask for one), a claim waits for free workers; with one, for room in it (a free worker
            // takes a waiting job first, so free workers mean an empty buffer)
            int target = buffer.capacity() == 0 || startsOnly ? 0 : buffer.target();
            int start;
            int room;
            try {
                if (target == 0) {
                    start = runner.awaitFreeWorkers();
                    room = 0;
                }
                else {
                    room = buffer.awaitRoom(AWAIT_READY, target);
                    // a full buffer while the queue's control changed since the last claim: a claim of
                    // nothing reads the new state, so that a pause or a rate limit hands the
                    // prefetched jobs back without waiting for room
                    if (room == 0 && gate.changes() == controlChangesSeen) {
                        continue;
                    }
                    start = room == 0 ? 0 : runner.takeFreeWorkers();
                }
            }
            catch (InterruptedException ex) {
                break;
            }
            int wanted = start + room;
            Claim claim;
            controlChangesSeen = gate.changes();
            try {
                if (held.takeUnknown()) {
                    releaseAllButHeld();
                }
                claim = store.claim(new ClaimRequest(watchdog.instanceId(), wanted, start, lease, epochs.current(),
                        endpoint.settings().rateLimit(), partition.index(), partition.count()));
            }
            catch (RuntimeException ex) {
                held.markUnknown();
                runner.giveBack(start);
                buffer.giveBackRoom(room);
                if (running) {
                    logger.warn(partition.describe() + ": claiming failed, retrying in 1s: " + ex.getMessage());
                    pause(Duration.ofSeconds(1));
                }
                continue;
            }
            if (!deliver(claim, start, room)) {
                return;
            }
            if (claim.fenced()) {
                refusedByFence(claim.fence());
                continue;
            }
            startsOnly = claim.startsOnly();
            // paused, or rate limited (a limit set at runtime while the buffer held jobs): the jobs
            // waiting in the buffer go back to ready, to start after the resume, or through the rate log
            if (claim.paused() || claim.startsOnly()) {
                handBackPrefetched();
            }
            if (gate.holdsBack(claim)) {
                gate.await(claim);
            }
            // fewer than asked for: ready was empty when the claim ran (or held only stale ids), so
            // wait for it here rather than spend a claim call that finds nothing
            else if (claim.jobs().size() < wanted && running) {
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
     * Hands the jobs of {@code claim} over: the first {@code start} to the workers taken for them, the
     * others (prefetched) to the buffer, in the room taken for them. Returns false when the workers
     * were shut down (stop() gave up waiting for this thread): the jobs not started are still held
     * and are handed back by stop().
     */
    private boolean deliver(Claim claim, int start, int room) {
        long claimedAt = System.nanoTime();
        List<StoredJob> jobs = claim.jobs();
        int started = Math.min(start, jobs.size());
        runner.giveBack(start - started);
        buffer.giveBackRoom(room - (jobs.size() - started));
        List<Execution> prefetched = new ArrayList<>(jobs.size() - started);
        for (int i = 0; i < jobs.size(); i++) {
            StoredJob job = jobs.get(i);
            Execution execution = new Execution(job, claim.serverNow(), claimedAt, i >= started,
                    claim.suspects().contains(job.id()));
            held.add(execution);
            if (i >= started) {
                prefetched.add(execution);
            }
            else if (!runner.start(execution)) {
                return false;
            }
        }
        if (!prefetched.isEmpty()) {
            buffer.add(prefetched);
        }
        return true;
    }

    /**
     * The claim fence refused a claim: its epoch is below {@code fence}, which a hand-back of this
     * claimer did not set (another start under this instance id did, most likely). The next turn hands back what
     * this instance holds and claims above that fence, instead of taking the refusal for an empty queue.
     */
    private void refusedByFence(long fence) {
        epochs.fenceSeen(fence);
        held.markUnknown();
        if (!fenceRefusalLogged && running) {
            fenceRefusalLogged = true;
            logger.warn(partition.describe() + ": a claim of epoch " + epochs.current() + " was refused by the claim fence "
                    + fence + " of instance " + watchdog.instanceId() + ", which this claimer did not set (is another "
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
        long fence = store.releaseAllBut(watchdog.instanceId(), held.ids(), epoch).fence();
        if (fence > epoch) {
            epochs.fenceSeen(fence);
            epoch = epochs.next();
            store.releaseAllBut(watchdog.instanceId(), held.ids(), epoch);
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
        List<Execution> waiting = buffer.drain();
        if (waiting.isEmpty()) {
            return;
        }
        waiting.forEach(held::remove);
        try {
            releaseAllButHeld();
        }
        catch (RuntimeException ex) {
            // handed back before the next claim, or recovered by other instances after the lease
            held.markUnknown();
            logger.warn(partition.describe() + ": could not hand back " + waiting.size() + " prefetched job(s): "
                    + ex.getMessage());
        }
    }

    /** What the store calls the jobs' queue: the partition's name. */
    private String queue() {
        return partition.name();
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
