package dev.delayjobs.core;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.delayjobs.core.DelayQueueObserver.Outcome;
import dev.delayjobs.store.StoredJob;

/**
 * The one channel the publisher and the consumers report what they do with jobs through: each
 * event tells the {@link DelayQueueObserver}s (the metrics), runs the {@link JobTracing} around the
 * publish and the handler call, and writes the log line, so that those classes hold this one
 * collaborator instead of an observer, a tracing and a logger. Internal: applications extend
 * {@link DelayQueueObserver} and {@link JobTracing}, which keep their contracts.
 *
 * <p>The consumer's lines keep the category of the listener containers,
 * {@code dev.delayjobs.listener.ListenerContainer}, which applications already configure.
 */
public final class JobEvents {

    /** Tells no observer, traces nothing; still logs. */
    public static final JobEvents NONE = new JobEvents(DelayQueueObserver.NONE, JobTracing.NONE);

    private static final Log consumerLog = LogFactory.getLog("dev.delayjobs.listener.ListenerContainer");

    private final DelayQueueObserver observer;
    private final JobTracing tracing;

    /**
     * @param observer the observers combined ({@link DelayQueueObserver#of}: one that throws is passed over)
     * @param tracing observes publishes and handler calls and carries the trace context between them
     */
    public JobEvents(DelayQueueObserver observer, JobTracing tracing) {
        this.observer = observer;
        this.tracing = tracing;
    }

    // --- publishing

    /** Runs one publish of {@code jobs} jobs, traced; {@code store} gets the headers to store with each. */
    public <T> T publish(String queue, int jobs, Function<Map<String, String>, T> store) {
        return tracing.publish(queue, jobs, store);
    }

    /** {@link #publish} without blocking, for the reactive publisher: the observation ends when {@code store}'s future does. */
    public <T> CompletableFuture<T> publishAsync(String queue, int jobs, Function<Map<String, String>, CompletableFuture<T>> store) {
        return tracing.publishAsync(queue, jobs, store);
    }

    /** One publish script call stored {@code count} jobs (created or replaced). */
    public void published(String queue, int count) {
        observer.published(queue, count);
    }

    // --- consuming

    /** A handler of this instance starts consuming {@code queue}. */
    public void consuming(String queue) {
        observer.consuming(queue);
    }

    /** A worker starts {@code job}, {@code lateness} after it became due (on the Redis clock). */
    public void started(String queue, StoredJob job, Duration lateness) {
        observer.started(queue, lateness);
    }

    /** Runs the handler call of {@code job}, in the trace its stored headers continue. */
    public void handle(String queue, StoredJob job, JobTracing.HandlerCall call) throws Throwable {
        tracing.handle(queue, job.id(), job.attempts(), job.headers(), call);
    }

    /** A job this instance handled ended as {@code outcome}, {@code duration} after it started (its outcome recorded or given up). */
    public void finished(String queue, Outcome outcome, Duration duration) {
        observer.finished(queue, outcome, duration);
    }

    /** The payload of {@code job} cannot be read: it goes to the dead set unhandled. */
    public void unreadable(String queue, StoredJob job, String error) {
        consumerLog.error("Queue '" + queue + "': job '" + job.id() + "' moves to the dead set: " + error);
    }

    /** A failed attempt of {@code job} goes to the dead set, for {@code reason} (last attempt, not retryable, ...). */
    public void dead(String queue, StoredJob job, int maxAttempts, String reason, String error) {
        consumerLog.warn("Queue '" + queue + "': job '" + job.id() + "' failed attempt " + job.attempts() + " of "
                + maxAttempts + " (" + reason + "); moving it to the dead set: " + error);
    }

    /** A failed attempt of {@code job} is retried after {@code delay}. */
    public void retrying(String queue, StoredJob job, int maxAttempts, Duration delay, String error) {
        consumerLog.info("Queue '" + queue + "': job '" + job.id() + "' failed attempt " + job.attempts() + " of " + maxAttempts
                + "; retrying in " + delay.toMillis() + " ms: " + error);
    }

    /** The handler of {@code job} threw an {@link Error} (not an assertion): logged with its stack. */
    public void handlerError(String queue, StoredJob job, Throwable error) {
        consumerLog.error("Queue '" + queue + "': handler threw " + error + " on job '" + job.id() + "'", error);
    }

    /** The failure policy threw on {@code job}: the configured backoff stands in. */
    public void policyFailed(String queue, StoredJob job, RuntimeException ex) {
        consumerLog.error("Queue '" + queue + "': the failure policy threw on job '" + job.id()
                + "'; retrying after the configured backoff", ex);
    }

    /** Shutdown interrupted the handler of {@code job}: not a failure, the job is handed back. */
    public void interruptedByShutdown(String queue, StoredJob job) {
        consumerLog.info("Queue '" + queue + "': job '" + job.id() + "' interrupted by shutdown; handing it back");
    }

    /** The handler of {@code job} returned after its timeout had counted the attempt as failed. */
    public void returnedAfterTimeout(String queue, StoredJob job) {
        if (consumerLog.isDebugEnabled()) {
            consumerLog.debug("Queue '" + queue + "': the handler of job '" + job.id() + "' returned after its "
                    + "timeout; what it did is not recorded (the attempt already counts as failed)");
        }
    }

    /** The outcome of {@code job} could not be recorded: it is handed back and delivered again. */
    public void outcomeLost(String queue, StoredJob job, RuntimeException failure) {
        consumerLog.error("Queue '" + queue + "': could not record the outcome of job '" + job.id()
                + "'; it will be handed back and delivered again: " + failure.getMessage());
    }

    /** Redis refused the outcome of {@code job}: another instance recovered it, or it was replaced. */
    public void outcomeRefused(String queue, StoredJob job) {
        consumerLog.info("Queue '" + queue + "': the outcome of job '" + job.id() + "' (attempt " + job.attempts()
                + ") was refused: the job was no longer held by this instance");
    }
}
