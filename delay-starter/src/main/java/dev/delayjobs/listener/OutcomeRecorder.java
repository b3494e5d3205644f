package dev.delayjobs.listener;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;

import dev.delayjobs.NonRetryableJobException;
import dev.delayjobs.core.DelayQueueObserver;
import dev.delayjobs.core.ErrorText;
import dev.delayjobs.core.JobEvents;
import dev.delayjobs.store.PartitionStore;
import dev.delayjobs.store.StoredJob;

/**
 * Records what became of a failed job of one queue: a retry after the backoff, or the dead set. An
 * outcome Redis does not take is retried ({@link OutcomeRetry}); given up, the job leaves the held
 * jobs and is handed back before the next claim, to be delivered again.
 */
final class OutcomeRecorder {

    /** Most {@code nextBackOff()} calls for one failure: the delay of attempt 10,000 stands for later ones. */
    static final int MOST_BACKOFF_STEPS = 10_000;

    private final HandlerEndpoint endpoint;
    private final PartitionStore store;
    private final String instanceId;
    private final PartitionSlots slots;
    private final BooleanSupplier stopping;
    /** Where the outcomes are logged. */
    private final JobEvents events;

    /** @param store the partition whose jobs these are (the queue itself when it is not partitioned) */
    OutcomeRecorder(HandlerEndpoint endpoint, PartitionStore store, String instanceId, PartitionSlots slots,
            BooleanSupplier stopping, JobEvents events) {
        this.events = events;
        this.endpoint = endpoint;
        this.store = store;
        this.instanceId = instanceId;
        this.slots = slots;
        this.stopping = stopping;
    }

    /** Retries or buries a job whose handler threw; returns what became of it, or null when it is left for stop() to hand back. */
    DelayQueueObserver.Outcome failed(Execution execution, Throwable ex) {
        StoredJob job = execution.job;
        if (execution.interruptedByShutdown()) {
            // interrupted by stop(), not failed: stop() hands the job back without counting a failure.
            // Not told by the thread's interrupt flag: InterruptedException clears it.
            events.interruptedByShutdown(queue(), job);
            return null;
        }
        if (ex instanceof Error && !(ex instanceof AssertionError)) {
            events.handlerError(queue(), job, ex);
        }
        return fail(execution, errorText(ex.getClass().getName() + ": " + ex.getMessage()), ex);
    }

    /**
     * Records a failed attempt: the dead set for a {@link NonRetryableJobException}, after the last
     * attempt, or when the failure policy says so; else a retry after the policy's backoff.
     */
    DelayQueueObserver.Outcome fail(Execution execution, String error, Throwable failure) {
        StoredJob job = execution.job;
        int maxAttempts = endpoint.settings().maxAttempts();
        String dead = failure instanceof NonRetryableJobException ? "not retryable"
                : job.attempts() >= maxAttempts ? "last attempt" : null;
        Duration backoff = null;
        if (dead == null) {
            try {
                backoff = retryDelay(failure, job.attempts());
                if (backoff == null) {
                    dead = "not retried by the failure policy";
                }
            }
            catch (RuntimeException ex) {
                events.policyFailed(queue(), job, ex);
                backoff = endpoint.settings().backoff().delayAfter(job.attempts(), ThreadLocalRandom.current().nextDouble());
            }
        }
        if (dead != null) {
            events.dead(queue(), job, maxAttempts, dead, error);
            return bury(execution, error);
        }
        Duration delay = backoff;
        events.retrying(queue(), job, maxAttempts, delay, error);
        complete(execution, () -> refusedIfFalse(store.retry(instanceId, job, error, delay), job));
        return DelayQueueObserver.Outcome.RETRIED;
    }

    /** A handler that ran past its timeout: a failed attempt, told to the policy as a {@link TimeoutException}. */
    DelayQueueObserver.Outcome timedOut(Execution execution, String error) {
        return fail(execution, error, new TimeoutException(error));
    }

    /** The policy's delay before the next attempt after {@code failedAttempts}, or null for the dead set. */
    private Duration retryDelay(Throwable failure, int failedAttempts) {
        if (!endpoint.failurePolicy().isRetryable(queue(), failure)) {
            return null;
        }
        long millis = delayAfter(endpoint.failurePolicy().backOff(queue()), failedAttempts);
        return millis == BackOffExecution.STOP ? null : Duration.ofMillis(Math.max(0, millis));
    }

    /**
     * The delay after {@code failedAttempts} failures: the last of as many {@code nextBackOff()} of a
     * new execution (Redis keeps the count, not this JVM), up to {@value #MOST_BACKOFF_STEPS} of them.
     */
    static long delayAfter(BackOff backOff, int failedAttempts) {
        if (backOff instanceof QueueSettings.ExponentialBackoff exponential) {
            // the same delay as the steps would give, without them
            return exponential.delayAfter(failedAttempts, ThreadLocalRandom.current().nextDouble()).toMillis();
        }
        BackOffExecution execution = backOff.start();
        long delay = BackOffExecution.STOP;
        for (int i = 0; i < Math.min(Math.max(1, failedAttempts), MOST_BACKOFF_STEPS); i++) {
            delay = execution.nextBackOff();
            if (delay == BackOffExecution.STOP) {
                break;
            }
        }
        return delay;
    }

    /** Moves a job to the dead set at once, with {@code error}. */
    DelayQueueObserver.Outcome bury(Execution execution, String error) {
        StoredJob job = execution.job;
        complete(execution, () -> refusedIfFalse(store.bury(instanceId, job, error), job));
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
            events.outcomeLost(queue(), job, failure);
            slots.lost(job);
        }
    }

    /** Says so when Redis refused an outcome: the job was recovered by another instance, or replaced. */
    private void refusedIfFalse(boolean recorded, StoredJob job) {
        if (!recorded) {
            events.outcomeRefused(queue(), job);
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
