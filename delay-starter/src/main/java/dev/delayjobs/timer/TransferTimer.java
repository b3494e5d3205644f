package dev.delayjobs.timer;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.delayjobs.queue.Partition;
import dev.delayjobs.redis.ChannelSubscription;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.redis.Transfer;

/**
 * Moves the due jobs of one partition of a queue (a queue that is not partitioned is its own single
 * partition) from delayed to ready, at the moment they become due.
 *
 * <p>After each transfer step, Redis tells the due time of the earliest job left; the timer arms
 * one timeout for it. A publish that creates a new earliest job announces its due time on the
 * queue's wake channel, and the timer re-arms earlier. The periodic sweep of {@link QueueWatchdog}
 * transfers regardless, so a lost message or subscription delays a job by one sweep at most.
 */
final class TransferTimer {

    private static final Log logger = LogFactory.getLog(TransferTimer.class);

    private final Partition partition;
    private final RedisJobStore store;
    private final ScheduledExecutorService scheduler;
    private final QueueLane lane;
    private final Runnable transferTask = this::transfer;
    private final int batchSize;

    /** Serializes transfer steps: each arms the timer from what its own step saw. */
    private final Object transferring = new Object();
    private final Object lock = new Object();
    private ScheduledFuture<?> armed;
    /** Due time (server clock) the armed timeout is for; Long.MAX_VALUE when none is armed. */
    private long armedFor = Long.MAX_VALUE;
    /** Earliest due time announced on the wake channel since the running transfer step began. */
    private long heardSinceStep = Long.MAX_VALUE;
    /** Redis server clock minus this JVM's clock, from the midpoint of the last transfer's round trip. */
    private volatile long clockOffset;
    private volatile boolean stopped;
    private ChannelSubscription subscription;

    /**
     * @param scheduler fires the timeouts (runs no Redis call)
     * @param lane where the partition's transfers run, one at a time
     */
    TransferTimer(Partition partition, RedisJobStore store, ScheduledExecutorService scheduler, QueueLane lane, int batchSize) {
        this.partition = partition;
        this.store = store;
        this.scheduler = scheduler;
        this.lane = lane;
        this.batchSize = batchSize;
    }

    /** Subscribes if not subscribed (first call, or the subscription was lost), then transfers. */
    void sweep() {
        if (stopped) {
            return;
        }
        ensureSubscribed();
        transfer();
    }

    void stop() {
        stopped = true;
        synchronized (lock) {
            if (armed != null) {
                armed.cancel(false);
            }
            armedFor = Long.MAX_VALUE;
            if (subscription != null) {
                subscription.close();
                subscription = null;
            }
        }
    }

    /**
     * Runs transfer steps until nothing more is due, then arms the one timeout of this queue for the
     * next due time: the earliest of what the step saw and what was announced meanwhile. The timeout
     * armed before is cancelled, so timeouts never pile up however many sweeps and wakes come in.
     */
    void transfer() {
        if (stopped) {
            return;
        }
        synchronized (transferring) {
            synchronized (lock) {
                heardSinceStep = Long.MAX_VALUE;
            }
            Transfer step;
            try {
                do {
                    long before = System.currentTimeMillis();
                    step = store.transfer(partition, batchSize);
                    clockOffset = step.serverNow() - (before + System.currentTimeMillis()) / 2;
                }
                while (step.moreDue() && !stopped);
            }
            catch (RuntimeException ex) {
                logger.warn("Transfer of queue '" + partition.name() + "' failed; the next sweep tries again: "
                        + ex.getMessage());
                return;
            }
            synchronized (lock) {
                long next = Math.min(step.nextDueAt() < 0 ? Long.MAX_VALUE : step.nextDueAt(), heardSinceStep);
                if (armed != null) {
                    armed.cancel(false);
                    armed = null;
                }
                armedFor = Long.MAX_VALUE;
                if (next != Long.MAX_VALUE) {
                    armLocked(next);
                }
            }
        }
    }

    /** Called with the due time a publish or retry announced on the wake channel. */
    void onEarlierDue(long dueAt) {
        synchronized (lock) {
            heardSinceStep = Math.min(heardSinceStep, dueAt);
            if (dueAt < armedFor) {
                if (armed != null) {
                    armed.cancel(false);
                }
                armLocked(dueAt);
            }
        }
    }

    private void armLocked(long dueAt) {
        if (stopped) {
            return;
        }
        // +1 ms: a timeout that fires a hair early finds nothing due and costs a second call
        long delay = Math.max(0, dueAt - (System.currentTimeMillis() + clockOffset) + 1);
        try {
            armed = scheduler.schedule(() -> lane.execute(transferTask), delay, TimeUnit.MILLISECONDS);
            armedFor = dueAt;
        }
        catch (RejectedExecutionException ex) {
            // the watchdog is stopping
        }
    }

    private void ensureSubscribed() {
        synchronized (lock) {
            if (subscription != null && subscription.isActive()) {
                return;
            }
            if (subscription != null) {
                logger.info("Wake subscription of queue '" + partition.name() + "' was lost; subscribing again");
                subscription.close();
                subscription = null;
            }
        }
        ChannelSubscription fresh;
        try {
            fresh = store.subscribeWake(partition, this::onEarlierDue);
        }
        catch (RuntimeException ex) {
            logger.warn("Cannot subscribe to the wake channel of queue '" + partition.name() + "'; sweeping only: "
                    + ex.getMessage());
            return;
        }
        synchronized (lock) {
            if (stopped || subscription != null) {
                fresh.close();
            }
            else {
                subscription = fresh;
            }
        }
    }
}
