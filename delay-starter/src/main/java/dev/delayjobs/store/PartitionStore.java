package dev.delayjobs.store;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What a consumer does to the jobs of one partition of a queue (the queue itself when it is not
 * partitioned): claim them, mark prefetched ones started, record their outcomes, and hand back
 * what it holds. Each call is one atomic step in the store; a failure to reach it surfaces as a
 * {@link RuntimeException} ({@code DelayQueueException} for Redis), after which the caller cannot
 * tell whether the step ran.
 */
public interface PartitionStore {

    /** The partition's name (the queue's name when it is not partitioned). */
    String name();

    /**
     * Takes up to {@code request.max()} ready jobs for {@code request.instance()}, oldest first; the
     * first {@code request.start()} become RUNNING and count an attempt, the others PREFETCHED.
     */
    Claim claim(ClaimRequest request);

    /**
     * Records that workers started these PREFETCHED jobs, without waiting: the future completes
     * with how many were marked (a job acked, retried or recovered meanwhile is not), or with the
     * failure.
     */
    CompletableFuture<Integer> markStartedAsync(List<StoredJob> jobs);

    /**
     * Records that a worker starts the PREFETCHED {@code job}, and waits for it: false when the job
     * is no longer PREFETCHED under this claim, and then must not run.
     */
    boolean markStarted(StoredJob job);

    /** Deletes jobs whose handler succeeded; returns how many were still held by {@code instance}. */
    int ack(String instance, List<StoredJob> jobs);

    /** Schedules a failed job again after {@code backoff}; false when {@code instance} no longer held it. */
    boolean retry(String instance, StoredJob job, String error, Duration backoff);

    /** Moves a claimed job to the dead set with {@code error}; false when {@code instance} no longer held it. */
    boolean bury(String instance, StoredJob job, String error);

    /**
     * Hands every job {@code instance} holds back to ready and forgets the instance (shutdown),
     * raising its claim fence to {@code fence}: a claim that arrives later with a lower epoch takes nothing.
     */
    Recovery release(String instance, long fence);

    /**
     * Hands back the jobs {@code instance} holds except those in {@code inFlight}, and raises its
     * claim fence to {@code fence} (never lowers it: {@link Recovery#fence()} says where it is).
     */
    Recovery releaseAllBut(String instance, Collection<String> inFlight, long fence);

    /** Waits until jobs are ready or {@code timeout} passes (at least a second), taking nothing; returns whether some are. */
    boolean awaitReady(Duration timeout);
}
