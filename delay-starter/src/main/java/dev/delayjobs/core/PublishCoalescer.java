package dev.delayjobs.core;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;

import dev.delayjobs.DelayQueueException;
import dev.delayjobs.queue.Partition;
import dev.delayjobs.redis.NewJob;
import dev.delayjobs.redis.PublishOutcome;
import dev.delayjobs.redis.RedisJobStore;

/**
 * Group commit for the publishes of one queue: concurrent calls share one script call. A call that
 * finds no other in flight is sent at once (no added wait when idle); calls that arrive while one
 * is in flight wait, and all of them go in the next call, up to {@value #MAX_JOBS} jobs a call. The
 * next call is sent by the thread that receives the reply of the one before (Redisson's I/O
 * thread), before the callers of that one are woken: no thread hand-off stands between two calls.
 * Each caller gets its own outcomes, or the exception of the call its jobs were in.
 *
 * <p>A shared call behaves as if its callers had published one after the other, in arrival order.
 */
final class PublishCoalescer {

    /** Most jobs in one shared call: the publisher's chunk size, which bounds how long a call holds Redis. */
    static final int MAX_JOBS = RoutedPublish.BATCH_CHUNK;

    private final RedisJobStore store;
    private final Map<Partition, Lane> lanes = new ConcurrentHashMap<>();
    /** Run by a blocking caller right before it waits (tests throw here what BlockHound throws when it parks). */
    private volatile Runnable beforeWait = () -> { };

    PublishCoalescer(RedisJobStore store) {
        this.store = store;
    }

    /**
     * Stores {@code jobs} (at most {@value #MAX_JOBS}) in {@code partition} (under the layout of its
     * count: one lane per partition and count), alone or with other callers' jobs; returns their
     * outcomes in order.
     */
    List<PublishOutcome> publish(Partition partition, List<NewJob> jobs) {
        Lane lane = lanes.computeIfAbsent(partition, Lane::new);
        return enqueue(lane, jobs).await(lane, beforeWait);
    }

    /** For tests: {@code hook} runs in each blocking caller's thread right before it waits for its call. */
    void beforeWait(Runnable hook) {
        this.beforeWait = hook;
    }

    /**
     * {@link #publish} without waiting, for the reactive publisher: the same lanes, so that its
     * publishes share calls with the blocking ones. The future completes on Redisson's I/O thread
     * with the outcomes, or with the exception a blocking caller would get.
     */
    CompletableFuture<List<PublishOutcome>> publishAsync(Partition partition, List<NewJob> jobs) {
        Lane lane = lanes.computeIfAbsent(partition, Lane::new);
        return enqueue(lane, jobs).result.handle((outcomes, failure) -> {
            if (failure != null) {
                throw Pending.thrown(lane, failure);
            }
            return outcomes;
        });
    }

    /** Lines {@code jobs} up in {@code lane}, and sends a call now if none is in flight. */
    private Pending enqueue(Lane lane, List<NewJob> jobs) {
        Pending mine = new Pending(jobs);
        List<Pending> call = null;
        synchronized (lane) {
            lane.add(mine);
            if (lane.mayStartCall()) {
                call = lane.nextCall();
            }
        }
        if (call != null) {
            send(lane, call);
        }
        return mine;
    }

    /** Sends one call with the jobs of {@code call}; its reply sends the next one and completes these callers. */
    private void send(Lane lane, List<Pending> call) {
        CompletableFuture<List<PublishOutcome>> reply;
        // whatever is thrown before the reply is awaited fails this call, so that the lane goes on
        try {
            List<NewJob> jobs = new ArrayList<>();
            for (Pending pending : call) {
                jobs.addAll(pending.jobs);
            }
            reply = store.publishAsync(lane.partition, jobs);
        }
        catch (RuntimeException | Error ex) {
            reply = CompletableFuture.failedFuture(ex);
        }
        reply.whenComplete((outcomes, failure) -> replied(lane, call, outcomes, failure));
    }

    private void replied(Lane lane, List<Pending> call, List<PublishOutcome> outcomes, Throwable failure) {
        List<Pending> next;
        synchronized (lane) {
            lane.inFlight--;
            next = lane.mayStartCall() ? lane.nextCall() : null;
        }
        if (next != null) {
            send(lane, next);
        }
        int from = 0;
        for (Pending pending : call) {
            if (outcomes != null) {
                pending.result.complete(outcomes.subList(from, from + pending.jobs.size()));
            }
            else {
                pending.result.completeExceptionally(failure);
            }
            from += pending.jobs.size();
        }
    }

    /** The publishes of one queue (or partition, under one layout), and whether a call of theirs is in flight. */
    private static final class Lane {

        /** Where the lane's jobs go; its count is the partition count they were routed by. */
        final Partition partition;
        // guarded by this
        final Deque<Pending> waiting = new ArrayDeque<>();
        int waitingJobs;
        int inFlight;

        Lane(Partition partition) {
            this.partition = partition;
        }

        void add(Pending pending) {
            waiting.addLast(pending);
            waitingJobs += pending.jobs.size();
        }

        boolean remove(Pending pending) {
            if (!waiting.remove(pending)) {
                return false;
            }
            waitingJobs -= pending.jobs.size();
            return true;
        }

        /**
         * Whether a call may leave now: when none is in flight, or when a full call's worth of jobs
         * waits behind the one in flight (batches: the next call then travels while Redis runs the
         * first). Small calls stay one at a time, so that they grow while one is in flight.
         */
        boolean mayStartCall() {
            return !waiting.isEmpty() && (inFlight == 0 || (inFlight == 1 && waitingJobs >= MAX_JOBS));
        }

        /** Takes the callers of the next call from the front: at least one, at most {@value #MAX_JOBS} jobs. */
        List<Pending> nextCall() {
            List<Pending> call = new ArrayList<>();
            int jobs = 0;
            while (!waiting.isEmpty() && (jobs == 0 || jobs + waiting.peekFirst().jobs.size() <= MAX_JOBS)) {
                Pending next = waiting.pollFirst();
                call.add(next);
                jobs += next.jobs.size();
            }
            waitingJobs -= jobs;
            inFlight++;
            return call;
        }
    }

    private static final class Pending {

        final List<NewJob> jobs;
        final CompletableFuture<List<PublishOutcome>> result = new CompletableFuture<>();

        Pending(List<NewJob> jobs) {
            this.jobs = jobs;
        }

        /**
         * Waits for the call these jobs went in. Interrupted before they went in one, they are
         * withdrawn and nothing is published; after, the call's outcome is awaited (it may have stored them).
         * Anything else thrown in the wait (BlockHound's error when a blocking publish waits on an
         * event loop) is rethrown, the jobs withdrawn too when no call took them yet: the lane stays
         * as if the caller had never come, or as if it had waited, and its next caller goes on.
         */
        List<PublishOutcome> await(Lane lane, Runnable beforeWait) {
            boolean interrupted = false;
            try {
                while (true) {
                    try {
                        beforeWait.run();
                        return result.get();
                    }
                    catch (InterruptedException ex) {
                        interrupted = true;
                        if (withdrawn(lane)) {
                            throw new DelayQueueException("Interrupted while waiting to publish to queue '"
                                    + lane.partition.name() + "'; nothing was published", ex);
                        }
                    }
                    catch (ExecutionException ex) {
                        throw thrown(lane, ex.getCause());
                    }
                    catch (RuntimeException | Error ex) {
                        withdrawn(lane);
                        throw ex;
                    }
                }
            }
            finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        /** Takes these jobs out of the lane if they wait for a call still; false when a call took them. */
        private boolean withdrawn(Lane lane) {
            synchronized (lane) {
                return lane.remove(this);
            }
        }

        static RuntimeException thrown(Lane lane, Throwable failure) {
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
            if (cause instanceof RuntimeException runtime) {
                return runtime;
            }
            // an Error of the call: every caller of it hears of it, and the lane goes on
            return new DelayQueueException("Publishing to queue '" + lane.partition.name() + "' failed: " + cause, cause);
        }
    }
}
