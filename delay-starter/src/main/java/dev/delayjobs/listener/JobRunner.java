package dev.delayjobs.listener;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.delayjobs.core.DelayQueueObserver;
import dev.delayjobs.core.DurationText;
import dev.delayjobs.core.JobEvents;
import dev.delayjobs.core.PayloadCodec;
import dev.delayjobs.payload.PayloadVersions;
import dev.delayjobs.store.StoredJob;
import dev.delayjobs.threads.WorkerThreads;

/**
 * Runs the claimed jobs of one partition of a queue: reads the payload, calls the handler (under
 * its timeout, if any), and hands the outcome to the acker or the {@link OutcomeRecorder}. A worker
 * that finishes a job goes on with the next one its {@link QueueSlots} hand it (a job waiting in a
 * buffer, this partition's first), on the runner of that job's partition. One runner per start of
 * the container.
 *
 * <p>A handler that runs past its timeout is interrupted and counted as a failed attempt at once,
 * and its worker is freed: a thread that ignores the interrupt is abandoned (it no longer counts
 * against the concurrency), and nothing it does later is recorded.
 */
final class JobRunner {

    private final HandlerEndpoint endpoint;
    private final PayloadCodec codec;
    /** Told of each start, handler call and outcome: metrics, tracing and the log lines. */
    private final JobEvents events;
    private final OutcomeRecorder outcomes;
    private final AckBatcher acks;
    private final PartitionSlots slots;
    private final StartMarks marks;
    /** Counts the starts, which an adaptive prefetch follows. */
    private final PrefetchPace pace;
    /**
     * Runs handlers. It grows past {@code concurrency} threads only by threads abandoned after a
     * handler timeout: the {@link QueueSlots}' workers bound the jobs handled at once.
     */
    private final ThreadPoolExecutor workers;
    /** Fires handler timeouts; null without a handler timeout. */
    private final ScheduledThreadPoolExecutor timeouts;
    /** Handler threads still running after their timeout settled the job. */
    private final AtomicInteger abandoned = new AtomicInteger();

    JobRunner(HandlerEndpoint endpoint, PayloadCodec codec, JobEvents events, OutcomeRecorder outcomes, AckBatcher acks, PartitionSlots slots, int share, WorkerThreads workerThreads,
            StartMarks marks, PrefetchPace pace) {
        this.endpoint = endpoint;
        this.codec = codec;
        this.events = events;
        this.outcomes = outcomes;
        this.acks = acks;
        this.slots = slots;
        this.marks = marks;
        this.pace = pace;
        QueueSettings settings = endpoint.settings();
        // at most: the running handlers, as many abandoned after a timeout (see timedOut), and
        // the short tasks that record those timeouts
        // kept: this partition's share of the workers (all of them unpartitioned); more start when it holds more
        this.workers = new ThreadPoolExecutor(share, 3 * settings.concurrency(), 60, TimeUnit.SECONDS,
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

    /**
     * Starts each of {@code executions} (held already) on the worker the slots took for it, on its
     * partition's runner. Returns false when a runner was shut down (stop() gave up waiting for the
     * claimer): such a job leaves the held jobs, so that stop() hands it back with the rest.
     */
    static boolean startAll(List<Execution> executions) {
        boolean all = true;
        ArrayDeque<Execution> left = new ArrayDeque<>(executions);
        while (!left.isEmpty()) {
            Execution execution = left.poll();
            try {
                execution.runner.workers.execute(() -> work(execution));
            }
            catch (RejectedExecutionException stopped) {
                all = false;
                // its worker goes to the next waiting job, if any, which is tried the same way
                Execution next = execution.runner.slots.finished(execution);
                if (next != null) {
                    left.add(next);
                }
            }
        }
        return all;
    }

    /** Runs {@code first}, then each job the slots hand this worker, until the worker is freed or handed over. */
    private static void work(Execution first) {
        Execution next = first;
        while (next != null) {
            next = next.runner.run(next);
        }
    }

    /** Runs {@code execution} on the caller's worker; returns the next job for this worker, or null. */
    private Execution run(Execution execution) {
        boolean ownsWorker = true;
        try {
            if (execution.prefetched && execution.suspect && !marks.startedNow(execution.job)) {
                // not run: handed back before the next claim (or already taken from this instance)
                slots.lost(execution.job);
                return slots.workerIdle();
            }
            if (execution.prefetched && !execution.suspect) {
                marks.started(execution);
            }
            pace.started();
            ownsWorker = handle(execution);
        }
        catch (RuntimeException | Error unexpected) {
            // this thread ends with the failure; its worker goes on with the next job on a fresh one
            if (ownsWorker) {
                startAll(nextOf(slots.finished(execution)));
            }
            throw unexpected;
        }
        if (ownsWorker) {
            return slots.finished(execution);
        }
        // a handler that ran past its timeout, back: with the worker it kept (too many abandoned), it goes on
        abandoned.decrementAndGet();
        return execution.permitKept() ? slots.workerIdle() : null;
    }

    private static List<Execution> nextOf(Execution next) {
        return next == null ? List.of() : List.of(next);
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
        events.started(queue(), job, Duration.ofMillis(Math.max(0, execution.claimServerNow - job.dueAt()))
                .plusNanos(started - execution.claimedAt));
        Object payload;
        try {
            payload = codec.read(job.payload(), PayloadVersions.stored(job.headers()), endpoint.payloadType());
        }
        catch (RuntimeException ex) {
            // a JacksonException, or whatever a custom deserializer throws: reading again would fail again
            String error = OutcomeRecorder.errorText("payload cannot be read as " + endpoint.payloadType().toCanonical()
                    + ": " + PayloadCodec.whyUnreadable(ex));
            events.unreadable(queue(), job, error);
            events.finished(queue(), outcomes.bury(execution, error), Duration.ofNanos(System.nanoTime() - started));
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
            events.handle(queue(), job, () -> endpoint.invoke(job, argument));
        }
        catch (Throwable ex) {
            failure = ex;
        }
        if (!execution.settle()) {
            // the timeout won: it counted the attempt as failed and freed the worker, or kept
            // the worker for this thread to take back now (too many threads abandoned)
            Thread.interrupted(); // its interrupt was meant for this call only
            events.returnedAfterTimeout(queue(), job);
            return false;
        }
        if (failure != null) {
            DelayQueueObserver.Outcome outcome = outcomes.failed(execution, failure);
            if (outcome != null) {
                events.finished(queue(), outcome, Duration.ofNanos(System.nanoTime() - started));
            }
            return true;
        }
        // the job stays held until the acker recorded its ack; acks of several workers share a call
        acks.add(job);
        execution.ackQueued();
        events.finished(queue(), DelayQueueObserver.Outcome.COMPLETED, Duration.ofNanos(System.nanoTime() - started));
        return true;
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
            Execution next = null;
            try {
                DelayQueueObserver.Outcome outcome = outcomes.timedOut(execution, error);
                events.finished(queue(), outcome, Duration.ofNanos(System.nanoTime() - started));
            }
            finally {
                // with freeNow, this thread takes the worker over and goes on with the next job
                next = slots.abandoned(execution, freeNow);
            }
            work(next);
        };
        try {
            workers.execute(record);
        }
        catch (RejectedExecutionException stopped) {
            // stop() has already handed the job back
            slots.abandoned(execution, false);
        }
    }

    private String queue() {
        return endpoint.queue();
    }
}
