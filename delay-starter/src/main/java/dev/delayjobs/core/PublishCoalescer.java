package dev.delayjobs.core;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.delayjobs.DelayQueueException;
import dev.delayjobs.redis.NewJob;
import dev.delayjobs.redis.PublishOutcome;
import dev.delayjobs.redis.RedisJobStore;

/**
 * Group commit for the publishes of one queue: concurrent calls share one script call. A call that
 * finds no other in flight runs at once (no added wait when idle); calls that arrive while one is in
 * flight wait, and the first of them then stores all of them together, up to {@value #MAX_JOBS}
 * jobs a call. Each caller gets its own outcomes, or the exception of the call its jobs were in.
 *
 * <p>A shared call behaves as if its callers had published one after the other, in arrival order.
 */
final class PublishCoalescer {

    /** Most jobs in one shared call: the publisher's chunk size, which bounds how long a call holds Redis. */
    static final int MAX_JOBS = RedisDelayPublisher.BATCH_CHUNK;

    private final RedisJobStore store;
    private final Map<String, Lane> lanes = new ConcurrentHashMap<>();

    PublishCoalescer(RedisJobStore store) {
        this.store = store;
    }

    /**
     * Stores {@code jobs} (at most {@value #MAX_JOBS}) in {@code queue}, an unpartitioned queue or a
     * partition of a queue of {@code partitions}, alone or with other callers' jobs; returns their
     * outcomes in order.
     */
    List<PublishOutcome> publish(String queue, int partitions, List<NewJob> jobs) {
        Lane lane = lanes.computeIfAbsent(queue + "/" + partitions, q -> new Lane(partitions));
        Pending mine = new Pending(jobs);
        boolean interrupted = false;
        synchronized (lane) {
            lane.waiting.add(mine);
            if (lane.busy) {
                // another call is in flight: wait for it to finish, then either be stored in the next
                // call by whoever leads it, or lead that call
                while (!mine.done && !mine.leads) {
                    try {
                        lane.wait();
                    }
                    catch (InterruptedException ex) {
                        if (!mine.leads && lane.waiting.remove(mine)) {
                            Thread.currentThread().interrupt();
                            throw new DelayQueueException("Interrupted while waiting to publish to queue '" + queue
                                    + "'; nothing was published", ex);
                        }
                        // taken into a call, or chosen to lead the next: the others wait for it
                        interrupted = true;
                    }
                }
                if (mine.done) {
                    if (interrupted) {
                        Thread.currentThread().interrupt();
                    }
                    return mine.result();
                }
            }
            lane.busy = true;
        }
        try {
            lead(queue, lane);
        }
        finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        return mine.result();
    }

    /** Stores what waits in the lane in one call, then hands the lead to the next waiting caller, if any. */
    private void lead(String queue, Lane lane) {
        List<Pending> batch = new ArrayList<>();
        List<NewJob> jobs = new ArrayList<>();
        synchronized (lane) {
            while (!lane.waiting.isEmpty()
                    && (jobs.isEmpty() || jobs.size() + lane.waiting.peekFirst().jobs.size() <= MAX_JOBS)) {
                Pending next = lane.waiting.pollFirst();
                batch.add(next);
                jobs.addAll(next.jobs);
            }
        }
        List<PublishOutcome> outcomes = null;
        RuntimeException failure = null;
        try {
            outcomes = store.publish(queue, lane.partitions, jobs);
        }
        catch (RuntimeException ex) {
            failure = ex;
        }
        catch (Error ex) {
            // every caller of the call hears of it, and the lane goes on: none may wait for good
            failure = new DelayQueueException("Publishing to queue '" + queue + "' failed: " + ex, ex);
        }
        finally {
            finish(lane, batch, outcomes, failure);
        }
    }

    private static void finish(Lane lane, List<Pending> batch, List<PublishOutcome> outcomes, RuntimeException failure) {
        synchronized (lane) {
            int from = 0;
            for (Pending pending : batch) {
                if (outcomes == null) {
                    pending.failure = failure;
                }
                else {
                    pending.outcomes = outcomes.subList(from, from + pending.jobs.size());
                }
                from += pending.jobs.size();
                pending.done = true;
            }
            Pending next = lane.waiting.peekFirst();
            if (next != null) {
                next.leads = true;
            }
            else {
                lane.busy = false;
            }
            lane.notifyAll();
        }
    }

    private static final class Lane {
        final Deque<Pending> waiting = new ArrayDeque<>();
        /** The partition count the lane's jobs were routed by. */
        final int partitions;
        boolean busy;

        Lane(int partitions) {
            this.partitions = partitions;
        }
    }

    private static final class Pending {

        final List<NewJob> jobs;
        boolean leads;
        boolean done;
        List<PublishOutcome> outcomes;
        RuntimeException failure;

        Pending(List<NewJob> jobs) {
            this.jobs = jobs;
        }

        List<PublishOutcome> result() {
            if (failure != null) {
                throw failure;
            }
            return outcomes;
        }
    }
}
