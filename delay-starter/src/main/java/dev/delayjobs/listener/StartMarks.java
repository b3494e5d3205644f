package dev.delayjobs.listener;

import java.util.ArrayList;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.delayjobs.store.PartitionStore;
import dev.delayjobs.store.StoredJob;

/**
 * Sends the start marks of one partition's prefetched jobs (start.lua) without holding up their
 * handlers: a mark that finds no call in flight leaves at once, and the marks that arrive while one
 * is in flight go together in the next, sent when its reply arrives. A mark whose handler has
 * already returned (or timed out) by then is dropped: the job's outcome counts its attempt anyway
 * (see let_go_of_claim in _ownership.lua), so under load, when handlers outrun the marks, most of them
 * cost Redis nothing. A mark is not retried: one that is lost or dropped only makes Redis see the
 * job as not started until its outcome, and a crash meanwhile hands it back as suspect (see
 * recover-expired.lua).
 */
final class StartMarks {

    private static final Log logger = LogFactory.getLog(StartMarks.class);
    /** Marks per call: bounds how long one call holds Redis. */
    private static final int MAX_BATCH = AckBatcher.MAX_BATCH;

    private final String queue;
    private final PartitionStore store;
    private final List<Execution> pending = new ArrayList<>();
    private boolean inFlight;

    StartMarks(PartitionStore store) {
        this.queue = store.name();
        this.store = store;
    }

    /** Marks the job of {@code execution} started, now or with the next call (unless it is settled by then). */
    void started(Execution execution) {
        List<StoredJob> call;
        synchronized (this) {
            pending.add(execution);
            if (inFlight) {
                return;
            }
            call = nextCall();
        }
        if (!call.isEmpty()) {
            send(call);
        }
    }

    /**
     * Marks a suspect {@code job} started and waits for Redis to record it: returns false when it
     * must not run (no longer held by this instance as PREFETCHED, or the mark failed).
     */
    boolean startedNow(StoredJob job) {
        try {
            return store.markStarted(job);
        }
        catch (RuntimeException ex) {
            logger.warn("Queue '" + queue + "': could not record the start of job '" + job.id() + "', which was held "
                    + "by a consumer that stopped; handing it back instead of running it: " + ex.getMessage());
            return false;
        }
    }

    /**
     * Takes the next call's marks, leaving out those of jobs already settled; under this object's
     * lock. Returns an empty list (and no call in flight) when all of them were.
     */
    private List<StoredJob> nextCall() {
        List<StoredJob> call = new ArrayList<>();
        int taken = 0;
        while (taken < pending.size() && call.size() < MAX_BATCH) {
            Execution execution = pending.get(taken++);
            if (!execution.settled()) {
                call.add(execution.job);
            }
        }
        pending.subList(0, taken).clear();
        inFlight = !call.isEmpty();
        return call;
    }

    private void send(List<StoredJob> call) {
        store.markStartedAsync(call).whenComplete((marked, failure) -> {
            if (failure != null && logger.isDebugEnabled()) {
                logger.debug("Queue '" + queue + "': " + call.size() + " start mark(s) not recorded (the jobs' outcomes "
                        + "count their attempts anyway): " + failure.getMessage());
            }
            List<StoredJob> next;
            synchronized (this) {
                inFlight = false;
                next = nextCall();
            }
            if (!next.isEmpty()) {
                send(next);
            }
        });
    }
}
