package dev.delayjobs.listener;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.delayjobs.core.DelayQueueObserver;
import dev.delayjobs.core.DurationText;
import dev.delayjobs.core.JobTracing;
import dev.delayjobs.core.PayloadCodec;
import dev.delayjobs.store.StoredJob;

/**
 * Runs the claimed jobs of one queue on {@code concurrency} workers: reads the payload, calls the
 * handler (under its timeout, if any), and hands the outcome to the acker or the
 * {@link OutcomeRecorder}. A worker that finishes a job goes on with the next one waiting in the
 * {@link PrefetchBuffer}, if any. One runner per start of the container.
 *
 * <p>A handler that runs past its timeout is interrupted and counted as a failed attempt at once,
 * and its worker is freed: a thread that ignores the interrupt is abandoned (it no longer counts
 * against the concurrency), and nothing it does later is recorded.
 */
final class JobRunner {

    /** The container's log category, which applications already configure. */
    private static final Log logger = LogFactory.getLog(ListenerContainer.class);

    private final HandlerEndpoint endpoint;
    private final PayloadCodec codec;
    private final JobTracing tracing;
    private final DelayQueueObserver observer;
    private final OutcomeRecorder outcomes;
    private final AckBatcher acks;
    private final HeldJobs held;
    private final StartMarks marks;
    /** Jobs claimed ahead of the workers; its capacity is 0 without prefetch. */
    private final PrefetchBuffer buffer;
    /**
     * Runs handlers. It grows past {@code concurrency} threads only by threads abandoned after a
     * handler timeout: {@link #freeWorkers} bounds the jobs handled at once.
     */
    private final ThreadPoolExecutor workers;
    /** Fires handler timeouts; null without a handler timeout. */
    private final ScheduledThreadPoolExecutor timeouts;
    private final WorkerPermits freeWorkers;
    /** Handler threads still running after their timeout settled the job. */
    private final AtomicInteger abandoned = new AtomicInteger();

    JobRunner(HandlerEndpoint endpoint, PayloadCodec codec, JobTracing tracing, DelayQueueObserver observer,
            OutcomeRecorder outcomes, AckBatcher acks, HeldJobs held, WorkerThreads workerThreads, WorkerPermits freeWorkers,
            StartMarks marks, PrefetchPace prefetch) {
        this.endpoint = endpoint;
        this.codec = codec;
        this.tracing = tracing;
        this.observer = observer;
        this.outcomes = outcomes;
        this.acks = acks;
        this.held = held;
        QueueSettings settings = endpoint.settings();
        this.freeWorkers = freeWorkers;
        this.marks = marks;
        this.buffer = new PrefetchBuffer(prefetch, freeWorkers, this::startWaiting);
        freeWorkers.register(buffer);
        // at most: the running handlers, as many abandoned after a timeout (see timedOut), and
        // the short tasks that record those timeouts
        // kept: this partition's share of the workers (all of them unpartitioned); more start when it holds more
        this.workers = new ThreadPoolExecutor(freeWorkers.share(), 3 * settings.concurrency(), 60, TimeUnit.SECONDS,
                new SynchronousQueue<>(), workerThreads.forQueue(queue()));
        if (settings.handlerTimeout() != null) {
            timeouts = new ScheduledThreadPoolExecutor(1, task -> {
                Thread thread = workerThreads.service("delay-" + queue() + "-timeout", task);
                thread.setDaemon(true);
                return thread;
            });
            timeouts.setRemoveOnCancelPolicy(true);
        }
        else {
            timeouts = null;
        }
    }

    /** Waits for a free worker, then takes other free ones too, up to this partition's share; returns how many. */
    int awaitFreeWorkers() throws InterruptedException {
        return freeWorkers.await();
    }

    /** Takes the free workers there are, up to this partition's share, without waiting; returns how many. */
    int takeFreeWorkers() {
        return freeWorkers.takeFree(freeWorkers.share());
    }

    /** Gives back workers taken by {@link #awaitFreeWorkers()} or {@link #takeFreeWorkers()} and not used. */
    void giveBack(int count) {
        freeWorkers.giveBack(count);
    }

    /** The jobs claimed ahead of the workers, which the claimer fills. */
    PrefetchBuffer buffer() {
        return buffer;
    }

    /**
     * Starts {@code execution} (held already) on one of the workers taken. Returns false when the
     * workers were shut down (stop() gave up waiting for the claimer): the job stays held, and stop()
     * hands it back.
     */
    boolean start(Execution execution) {
        try {
            workers.execute(() -> work(execution));
            return true;
        }
        catch (RejectedExecutionException stopped) {
            return false;
        }
    }

    /** Starts a prefetched job on a worker the buffer took for it. */
    private void startWaiting(Execution execution) {
        if (!start(execution)) {
            // shut down: not held any longer, so that stop() hands it back with the rest
            held.remove(execution);
        }
    }

    /** Runs {@code first}, then the jobs waiting in the buffer, on this worker, until none waits. */
    private void work(Execution first) {
        Execution next = first;
        while (next != null) {
            boolean keepsWorker;
            try {
                if (next.prefetched && next.suspect && !marks.startedNow(next.job)) {
                    // not run: handed back before the next claim (or already taken from this instance)
                    held.remove(next);
                    held.markUnknown();
                    next = buffer.nextOrFree();
                    continue;
                }
                if (next.prefetched && !next.suspect) {
                    marks.started(next);
                }
                buffer.started();
                keepsWorker = handle(next);
            }
            catch (RuntimeException | Error unexpected) {
                freeWorkers.giveBack(1);
                throw unexpected;
            }
            if (!keepsWorker) {
                return;
            }
            next = buffer.nextOrFree();
        }
    }

    void shutdown() {
        if (timeouts != null) {
            timeouts.shutdownNow();
        }
        workers.shutdownNow();
    }

    /**
     * Runs one job; returns whether this thread still owns its worker (not when a handler timeout
     * took it over). Lateness is measured on the Redis clock (the due time's clock): the server time
     * of the claim plus the time the job then waited here, in the buffer included.
     */
    private boolean handle(Execution execution) {
        StoredJob job = execution.job;
        long started = System.nanoTime();
        boolean ownsWorker = true;
        boolean ackQueued = false;
        try {
            observer.started(queue(), Duration.ofMillis(Math.max(0, execution.claimServerNow - job.dueAt()))
                    .plusNanos(started - execution.claimedAt));
            Object payload;
            try {
                payload = codec.read(job.payload(), endpoint.payloadType());
            }
            catch (RuntimeException ex) {
                // a JacksonException, or whatever a custom deserializer throws: reading again would fail again
                String error = OutcomeRecorder.errorText("payload cannot be read as " + endpoint.payloadType().toCanonical()
                        + ": " + PayloadCodec.whyUnreadable(ex));
                logger.error("Queue '" + queue() + "': job '" + job.id() + "' moves to the dead set: " + error);
                observer.finished(queue(), outcomes.bury(execution, error), Duration.ofNanos(System.nanoTime() - started));
                return true;
            }
            Duration timeout = endpoint.settings().handlerTimeout();
            execution.handlerStarted(Thread.currentThread());
            if (timeout != null) {
                try {
                    execution.timeout(timeouts.schedule(() -> timedOut(execution, started), timeout.toNanos(),
                            TimeUnit.NANOSECONDS));
                }
                catch (RejectedExecutionException stopped) {
                    // stop() is past waiting for handlers: it interrupts and hands back what is left
                }
            }
            Throwable failure = null;
            Object argument = payload;
            try {
                tracing.handle(queue(), job.id(), job.attempts(), job.headers(), () -> endpoint.invoke(job, argument));
            }
            catch (Throwable ex) {
                failure = ex;
            }
            if (!execution.settle()) {
                // the timeout won: it counted the attempt as failed and freed the worker, or kept
                // the worker's permit for this thread to give back now (too many threads abandoned)
                ownsWorker = false;
                abandoned.decrementAndGet();
                if (execution.permitKept()) {
                    freeWorkers.giveBack(1);
                }
                Thread.interrupted(); // its interrupt was meant for this call only
                if (logger.isDebugEnabled()) {
                    logger.debug("Queue '" + queue() + "': the handler of job '" + job.id() + "' returned after its "
                            + "timeout; what it did is not recorded (the attempt already counts as failed)");
                }
                return false;
            }
            if (failure != null) {
                DelayQueueObserver.Outcome outcome = outcomes.failed(execution, failure);
                if (outcome != null) {
                    observer.finished(queue(), outcome, Duration.ofNanos(System.nanoTime() - started));
                }
                return true;
            }
            // the job stays held until the acker recorded its ack; acks of several workers share a call
            acks.add(job);
            ackQueued = true;
            observer.finished(queue(), DelayQueueObserver.Outcome.COMPLETED, Duration.ofNanos(System.nanoTime() - started));
            return true;
        }
        finally {
            // the worker itself is freed, or goes on with the next job, in work()
            if (ownsWorker && !ackQueued) {
                held.remove(execution);
            }
        }
    }

    /**
     * The handler of {@code execution} ran past its timeout: interrupts it, and records the failed
     * attempt on a fresh worker thread, since the handler's own thread may never come back.
     */
    private void timedOut(Execution execution, long started) {
        if (!execution.expire()) {
            return;
        }
        // one log line per timeout: the attempt's failure, logged where it is recorded
        String error = "handler timed out after " + DurationText.of(endpoint.settings().handlerTimeout());
        // The handler's thread may never come back. Up to concurrency such threads, the worker is
        // freed at once; past that, this thread keeps its permit until it returns, so abandoned
        // handlers cannot grow the pool without bound.
        boolean freeNow = abandoned.incrementAndGet() <= endpoint.settings().concurrency();
        if (!freeNow) {
            execution.keepPermit();
        }
        Runnable record = () -> {
            try {
                DelayQueueObserver.Outcome outcome = outcomes.timedOut(execution, error);
                observer.finished(queue(), outcome, Duration.ofNanos(System.nanoTime() - started));
            }
            finally {
                held.remove(execution);
                if (freeNow) {
                    freeWorkers.giveBack(1);
                }
            }
        };
        try {
            workers.execute(record);
        }
        catch (RejectedExecutionException stopped) {
            // stop() has already handed the job back
            held.remove(execution);
        }
    }

    private String queue() {
        return endpoint.queue();
    }
}
