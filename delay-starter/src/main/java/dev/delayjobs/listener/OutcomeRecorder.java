package dev.delayjobs.listener;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.delayjobs.NonRetryableJobException;
import dev.delayjobs.core.DelayQueueObserver;
import dev.delayjobs.core.ErrorText;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.redis.StoredJob;

/**
 * Records what became of a failed job of one queue: a retry after the backoff, or the dead set. An
 * outcome Redis does not take is retried ({@link OutcomeRetry}); given up, the job leaves the held
 * jobs and is handed back before the next claim, to be delivered again.
 */
final class OutcomeRecorder {

    /** The container's log category, which applications already configure. */
    private static final Log logger = LogFactory.getLog(ListenerContainer.class);

    private final HandlerEndpoint endpoint;
    private final String partition;
    private final RedisJobStore store;
    private final String instanceId;
    private final HeldJobs held;
    private final BooleanSupplier stopping;

    /** @param partition the partition whose jobs these are (the queue itself when it is not partitioned) */
    OutcomeRecorder(HandlerEndpoint endpoint, String partition, RedisJobStore store, String instanceId, HeldJobs held,
            BooleanSupplier stopping) {
        this.endpoint = endpoint;
        this.partition = partition;
        this.store = store;
        this.instanceId = instanceId;
        this.held = held;
        this.stopping = stopping;
    }

    /** Retries or buries a job whose handler threw; returns what became of it, or null when it is left for stop() to hand back. */
    DelayQueueObserver.Outcome failed(Execution execution, Throwable ex) {
        StoredJob job = execution.job;
        if (execution.interruptedByShutdown()) {
            // interrupted by stop(), not failed: stop() hands the job back without counting a failure.
            // Not told by the thread's interrupt flag: InterruptedException clears it.
            logger.info("Queue '" + queue() + "': job '" + job.id() + "' interrupted by shutdown; handing it back");
            return null;
        }
        if (ex instanceof Error && !(ex instanceof AssertionError)) {
            logger.error("Queue '" + queue() + "': handler threw " + ex + " on job '" + job.id() + "'", ex);
        }
        return fail(execution, errorText(ex.getClass().getName() + ": " + ex.getMessage()),
                ex instanceof NonRetryableJobException);
    }

    /** Records a failed attempt: a retry after the backoff, or the dead set after the last attempt. */
    DelayQueueObserver.Outcome fail(Execution execution, String error, boolean nonRetryable) {
        StoredJob job = execution.job;
        int maxAttempts = endpoint.settings().maxAttempts();
        if (nonRetryable || job.attempts() >= maxAttempts) {
            logger.warn("Queue '" + queue() + "': job '" + job.id() + "' failed attempt " + job.attempts() + " of "
                    + maxAttempts + "; moving it to the dead set: " + error);
            return bury(execution, error);
        }
        Duration backoff = endpoint.settings().backoff().delayAfter(job.attempts(), ThreadLocalRandom.current().nextDouble());
        logger.info("Queue '" + queue() + "': job '" + job.id() + "' failed attempt " + job.attempts() + " of " + maxAttempts
                + "; retrying in " + backoff.toMillis() + " ms: " + error);
        complete(execution, () -> refusedIfFalse(store.retry(partition, instanceId, job, error, backoff), job));
        return DelayQueueObserver.Outcome.RETRIED;
    }

    /** Moves a job to the dead set at once, with {@code error}. */
    DelayQueueObserver.Outcome bury(Execution execution, String error) {
        StoredJob job = execution.job;
        complete(execution, () -> refusedIfFalse(store.bury(partition, instanceId, job, error), job));
        return DelayQueueObserver.Outcome.DEAD;
    }

    /**
     * Records the outcome of a job ({@link OutcomeRetry}); if that gives up, the job is handed back
     * before the next claim and delivered again.
     */
    private void complete(Execution execution, Runnable outcome) {
        RuntimeException failure = OutcomeRetry.run(outcome, stopping);
        if (failure != null) {
            StoredJob job = execution.job;
            logger.error("Queue '" + queue() + "': could not record the outcome of job '" + job.id()
                    + "'; it will be handed back and delivered again: " + failure.getMessage());
            held.remove(execution);
            held.markUnknown();
        }
    }

    /** Says so when Redis refused an outcome: the job was recovered by another instance, or replaced. */
    private void refusedIfFalse(boolean recorded, StoredJob job) {
        if (!recorded) {
            logger.info("Queue '" + queue() + "': the outcome of job '" + job.id() + "' (attempt " + job.attempts()
                    + ") was refused: the job was no longer held by this instance");
        }
    }

    private String queue() {
        return endpoint.queue();
    }

    /** An error as logged and stored: control characters escaped (no forged log lines), at most 2000 characters. */
    static String errorText(String text) {
        return ErrorText.of(text);
    }
}
