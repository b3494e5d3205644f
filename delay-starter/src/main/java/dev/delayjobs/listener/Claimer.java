package dev.delayjobs.listener;

import java.time.Duration;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.delayjobs.redis.Claim;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.redis.StoredJob;
import dev.delayjobs.timer.QueueWatchdog;

/**
 * The claimer thread of one queue: takes as many ready jobs as there are free workers in one
 * script call (one Redis connection, however many workers), hands them to the {@link JobRunner},
 * and waits when the queue is empty, paused or rate limited. One claimer per start of the container.
 *
 * <p>A claim or an outcome whose reply is lost (a timeout, a dropped connection) leaves jobs held by
 * this live instance that no worker handles: before its next claim the claimer hands those back and
 * raises its claim epoch, which fences off the claims sent before (one that reaches Redis late takes
 * nothing). It does the same at its first turn (what this instance id held before a restart) and
 * once per lease.
 */
final class Claimer {

    /** The container's log category, which applications already configure. */
    private static final Log logger = LogFactory.getLog(ListenerContainer.class);
    private static final Duration AWAIT_READY = Duration.ofSeconds(1);

    private final HandlerEndpoint endpoint;
    private final ConsumedPartition partition;
    private final RedisJobStore store;
    private final QueueWatchdog watchdog;
    private final ClaimGate gate;
    private final JobRunner runner;
    private final HeldJobs held;
    private final Thread thread;
    private volatile boolean running = true;
    /** Epoch of this claimer's claims, raised with each hand-back (see the class comment). */
    private long claimEpoch = 1;

    Claimer(HandlerEndpoint endpoint, ConsumedPartition partition, RedisJobStore store, QueueWatchdog watchdog, ClaimGate gate,
            JobRunner runner, HeldJobs held) {
        this.endpoint = endpoint;
        this.partition = partition;
        this.store = store;
        this.watchdog = watchdog;
        this.gate = gate;
        this.runner = runner;
        this.held = held;
        this.thread = new Thread(this::superviseClaimLoop, "delay-" + partition.name() + "-claimer");
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
            int wanted;
            try {
                wanted = runner.awaitFreeWorkers();
            }
            catch (InterruptedException ex) {
                break;
            }
            Claim claim;
            try {
                if (held.takeUnknown()) {
                    claimEpoch = store.releaseAllBut(queue(), watchdog.instanceId(), held.ids()).fence();
                }
                claim = store.claim(queue(), watchdog.instanceId(), wanted, lease, claimEpoch,
                        endpoint.settings().rateLimit(), partition.index(), partition.count());
            }
            catch (RuntimeException ex) {
                held.markUnknown();
                runner.giveBack(wanted);
                if (running) {
                    logger.warn(partition.describe() + ": claiming failed, retrying in 1s: " + ex.getMessage());
                    pause(Duration.ofSeconds(1));
                }
                continue;
            }
            long claimedAt = System.nanoTime();
            List<StoredJob> jobs = claim.jobs();
            runner.giveBack(wanted - jobs.size());
            for (StoredJob job : jobs) {
                if (!runner.start(job, claim.serverNow(), claimedAt)) {
                    // stop() gave up waiting for this thread and shut the workers down: the jobs not
                    // started are still held and are handed back by stop()
                    return;
                }
            }
            if (gate.holdsBack(claim)) {
                gate.await(claim);
            }
            // fewer than asked for: ready was empty when the claim ran (or held only stale ids), so
            // wait for it here rather than spend a claim call that finds nothing
            else if (jobs.size() < wanted && running) {
                try {
                    store.awaitReady(queue(), AWAIT_READY);
                }
                catch (RuntimeException ex) {
                    if (running) {
                        pause(Duration.ofMillis(200));
                    }
                }
            }
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
