package dev.delayjobs.listener;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.delayjobs.NonRetryableJobException;
import dev.delayjobs.core.DelayQueueObserver;
import dev.delayjobs.core.DurationText;
import dev.delayjobs.core.JobTracing;
import dev.delayjobs.core.PayloadCodec;
import dev.delayjobs.redis.Claim;
import dev.delayjobs.redis.QueueControls;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.redis.StoredJob;
import dev.delayjobs.timer.QueueWatchdog;

/**
 * Runs the handler of one queue in this instance: one claimer thread takes as many ready jobs as
 * there are free workers (one Redis connection, however many workers), and {@code concurrency}
 * workers call the handler, then ack, retry or bury each job.
 *
 * <p>A claim or an outcome whose reply is lost (a timeout, a dropped connection) leaves jobs
 * held by this live instance that no worker handles: the next claim first hands those back.
 *
 * <p>With a handler timeout, a call that runs longer is interrupted and counted as a failed
 * attempt at once, and its worker is freed: a thread that ignores the interrupt is abandoned (it
 * no longer counts against the concurrency), and nothing it does later is recorded.
 *
 * <p>Stopping stops claiming, waits for running handlers up to the shutdown timeout, interrupts
 * those still running, and hands every job still held back to ready at once.
 */
public final class ListenerContainer {

    private static final Log logger = LogFactory.getLog(ListenerContainer.class);
    private static final Duration AWAIT_READY = Duration.ofSeconds(1);
    private static final int MAX_ERROR_LENGTH = 2000;

    private final HandlerEndpoint endpoint;
    private final RedisJobStore store;
    private final QueueWatchdog watchdog;
    private final PayloadCodec codec;
    private final Duration shutdownTimeout;
    private final DelayQueueObserver observer;
    private final WorkerThreads workerThreads;
    private final JobTracing tracing;
    private final QueueControls controls;

    private final Object lifecycle = new Object();
    private volatile boolean running;
    private Thread claimer;
    /**
     * Runs handlers. It grows past {@code concurrency} threads only by threads abandoned after a
     * handler timeout: {@link #freeWorkers} bounds the jobs handled at once.
     */
    private ThreadPoolExecutor workers;
    /** Fires handler timeouts; null without a handler timeout. */
    private ScheduledThreadPoolExecutor timeouts;
    private Semaphore freeWorkers;
    /** Handler threads still running after their timeout settled the job. */
    private final AtomicInteger abandoned = new AtomicInteger();
    private AckBatcher acks;
    private ClaimGate gate;
    /** Jobs this instance is handling (or whose ack is pending), by id; anything else in its active list is held by mistake. */
    private final Map<String, Execution> inFlight = new ConcurrentHashMap<>();
    /** Set when a claim or an outcome may have reached Redis without this instance knowing. */
    private volatile boolean heldUnknown;
    /**
     * Epoch of this container's claims. Raised with each hand-back after a lost reply, which
     * fences off the claims sent before it: one that reaches Redis late takes nothing.
     */
    private volatile long claimEpoch = 1;

    ListenerContainer(HandlerEndpoint endpoint, RedisJobStore store, QueueWatchdog watchdog, PayloadCodec codec,
            Duration shutdownTimeout, DelayQueueObserver observer, WorkerThreads workerThreads, JobTracing tracing,
            QueueControls controls) {
        this.workerThreads = workerThreads;
        this.controls = controls;
        this.tracing = tracing;
        this.endpoint = endpoint;
        this.store = store;
        this.watchdog = watchdog;
        this.codec = codec;
        this.shutdownTimeout = shutdownTimeout;
        this.observer = observer;
    }

    public String queue() {
        return endpoint.queue();
    }

    public QueueSettings settings() {
        return endpoint.settings();
    }

    public boolean isRunning() {
        return running;
    }

    public void start() {
        synchronized (lifecycle) {
            if (running) {
                return;
            }
            QueueSettings settings = endpoint.settings();
            watchdog.watch(queue(), settings.maxAttempts(), settings.concurrency());
            observer.consuming(queue());
            gate = new ClaimGate(queue(), controls);
            gate.open(settings.pausedOnStartup());
            freeWorkers = new Semaphore(settings.concurrency());
            acks = new AckBatcher(queue(), store, watchdog.instanceId(), this::settled, lost -> {
                lost.forEach(this::settled);
                heldUnknown = true;
            });
            // at most: the running handlers, as many abandoned after a timeout (see timedOut), and
            // the short tasks that record those timeouts
            workers = new ThreadPoolExecutor(settings.concurrency(), 3 * settings.concurrency(), 60, TimeUnit.SECONDS,
                    new SynchronousQueue<>(), workerThreads.forQueue(queue()));
            abandoned.set(0);
            timeouts = null;
            if (settings.handlerTimeout() != null) {
                timeouts = new ScheduledThreadPoolExecutor(1, task -> daemon(task, "delay-" + queue() + "-timeout"));
                timeouts.setRemoveOnCancelPolicy(true);
            }
            // what this instance id held before (a restart under a fixed delay.instance-id, or stop then
            // start) has no worker here: hand it back, and claim above the fence it may have left
            heldUnknown = true; // the first turn of the claim loop hands it back and sets claimEpoch
            running = true;
            claimer = new Thread(this::superviseClaimLoop, "delay-" + queue() + "-claimer");
            claimer.start();
        }
    }

    public void stop() {
        synchronized (lifecycle) {
            if (!running) {
                return;
            }
            running = false;
            claimer.interrupt();
            join(claimer, AWAIT_READY.plusSeconds(5));
            gate.close();
            boolean finished = awaitHandlers(shutdownTimeout);
            if (!finished) {
                logger.warn("Queue '" + queue() + "': handlers still running after " + DurationText.of(shutdownTimeout)
                        + "; interrupting them and handing their jobs back");
                inFlight.values().forEach(Execution::interruptHandler);
                finished = awaitHandlers(Duration.ofSeconds(5));
            }
            acks.stop(Duration.ofSeconds(10));
            // heartbeats stop before the release: one after it would enter this instance again
            watchdog.unwatch(queue());
            try {
                if (finished) {
                    store.release(queue(), watchdog.instanceId());
                }
                else {
                    // handlers ignore the interrupt: handing their jobs back now would run them twice at
                    // once; they stay held, and other instances recover them when the lease expires
                    logger.warn("Queue '" + queue() + "': " + inFlight.size() + " handler(s) ignored the interrupt; "
                            + "their jobs are recovered by other instances when the heartbeat lease expires");
                    store.releaseAllBut(queue(), watchdog.instanceId(), List.copyOf(inFlight.keySet()));
                }
            }
            catch (RuntimeException ex) {
                logger.warn("Queue '" + queue() + "': could not hand jobs back at shutdown; other instances recover "
                        + "them when the heartbeat lease expires: " + ex.getMessage());
            }
            if (timeouts != null) {
                timeouts.shutdownNow();
            }
            workers.shutdownNow();
        }
    }

    /**
     * No throwable ends claiming silently while the container says it runs: one that escapes the
     * loop is logged, the jobs this instance holds but no worker handles are handed back at the next
     * claim, and the loop starts again.
     */
    private void superviseClaimLoop() {
        while (running) {
            try {
                claimLoop();
            }
            catch (Throwable ex) {
                if (!running) {
                    return;
                }
                logger.error("Queue '" + queue() + "': the claim loop failed; restarting it in 1s", ex);
                heldUnknown = true;
                pause(Duration.ofSeconds(1));
            }
        }
    }

    private void claimLoop() {
        Duration lease = watchdog.settings().heartbeatLease();
        long reconciledAt = System.nanoTime();
        while (running) {
            // once per lease, whether or not a failure was seen: anything this instance holds in
            // Redis that no worker handles (a claim whose copy ran unseen, say) goes back to ready
            if (System.nanoTime() - reconciledAt > lease.toNanos()) {
                heldUnknown = true;
                reconciledAt = System.nanoTime();
            }
            int wanted;
            try {
                freeWorkers.acquire();
                wanted = 1 + freeWorkers.drainPermits();
            }
            catch (InterruptedException ex) {
                break;
            }
            Claim claim;
            try {
                if (heldUnknown) {
                    heldUnknown = false;
                    claimEpoch = store.releaseAllBut(queue(), watchdog.instanceId(), List.copyOf(inFlight.keySet())).fence();
                }
                claim = store.claim(queue(), watchdog.instanceId(), wanted, lease, claimEpoch, settings().rateLimit());
            }
            catch (RuntimeException ex) {
                heldUnknown = true;
                freeWorkers.release(wanted);
                if (running) {
                    logger.warn("Queue '" + queue() + "': claiming failed, retrying in 1s: " + ex.getMessage());
                    pause(Duration.ofSeconds(1));
                }
                continue;
            }
            long claimedAt = System.nanoTime();
            List<StoredJob> jobs = claim.jobs();
            freeWorkers.release(wanted - jobs.size());
            try {
                for (StoredJob job : jobs) {
                    Execution execution = new Execution(job);
                    inFlight.put(job.id(), execution);
                    workers.execute(() -> handle(execution, claim.serverNow(), claimedAt));
                }
            }
            catch (RejectedExecutionException ex) {
                // stop() gave up waiting for this thread and shut the workers down: the jobs not
                // started are still held and are handed back by stop()
                break;
            }
            if (gate.holdsBack(claim)) {
                gate.await(claim);
            }
            // fewer than asked for: ready was empty when the claim ran (or held only stale ids), so
            // wait for it here rather than spend a claim call that finds nothing
            else if (jobs.size() < wanted && running) {
                try {
                    store.awaitReady(queue(), AWAIT_READY);
                }
                catch (RuntimeException ex) {
                    if (running) {
                        pause(Duration.ofMillis(200));
                    }
                }
            }
        }
    }

    /**
     * Runs one job. Lateness is measured on the Redis clock (the due time's clock): the server time
     * of the claim plus the time the job then waited here.
     */
    private void handle(Execution execution, long claimServerNow, long claimedAt) {
        StoredJob job = execution.job;
        long started = System.nanoTime();
        boolean ownsWorker = true;
        boolean ackQueued = false;
        try {
            observer.started(queue(), Duration.ofMillis(Math.max(0, claimServerNow - job.dueAt()))
                    .plusNanos(started - claimedAt));
            Object payload;
            try {
                payload = codec.read(job.payload(), endpoint.payloadType());
            }
            catch (RuntimeException ex) {
                // a JacksonException, or whatever a custom deserializer throws: reading again would fail again
                String error = errorText("payload cannot be read as " + endpoint.payloadType().toCanonical() + ": "
                        + PayloadCodec.whyUnreadable(ex));
                logger.error("Queue '" + queue() + "': job '" + job.id() + "' moves to the dead set: " + error);
                complete(execution, () -> refusedIfFalse(store.bury(queue(), watchdog.instanceId(), job, error), job));
                observer.finished(queue(), DelayQueueObserver.Outcome.DEAD, Duration.ofNanos(System.nanoTime() - started));
                return;
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
                    freeWorkers.release();
                }
                Thread.interrupted(); // its interrupt was meant for this call only
                if (logger.isDebugEnabled()) {
                    logger.debug("Queue '" + queue() + "': the handler of job '" + job.id() + "' returned after its "
                            + "timeout; what it did is not recorded (the attempt already counts as failed)");
                }
                return;
            }
            if (failure != null) {
                DelayQueueObserver.Outcome outcome = onFailure(execution, failure);
                if (outcome != null) {
                    observer.finished(queue(), outcome, Duration.ofNanos(System.nanoTime() - started));
                }
                return;
            }
            // the job stays in flight until the acker recorded its ack; acks of several workers share a call
            acks.add(job);
            ackQueued = true;
            observer.finished(queue(), DelayQueueObserver.Outcome.COMPLETED, Duration.ofNanos(System.nanoTime() - started));
        }
        finally {
            if (ownsWorker) {
                if (!ackQueued) {
                    inFlight.remove(job.id(), execution);
                }
                freeWorkers.release();
            }
        }
    }

    /** The ack of {@code job} was recorded, or given up: it leaves the in-flight set (not a newer claim of its id). */
    private void settled(StoredJob job) {
        inFlight.computeIfPresent(job.id(), (id, execution) -> execution.job == job ? null : execution);
    }

    /**
     * The handler of {@code execution} ran past its timeout: interrupts it, and records the failed
     * attempt on a fresh worker thread, since the handler's own thread may never come back.
     */
    private void timedOut(Execution execution, long started) {
        if (!execution.expire()) {
            return;
        }
        StoredJob job = execution.job;
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
                DelayQueueObserver.Outcome outcome = fail(execution, error, false);
                observer.finished(queue(), outcome, Duration.ofNanos(System.nanoTime() - started));
            }
            finally {
                inFlight.remove(job.id(), execution);
                if (freeNow) {
                    freeWorkers.release();
                }
            }
        };
        try {
            workers.execute(record);
        }
        catch (RejectedExecutionException stopped) {
            // stop() has already handed the job back
            inFlight.remove(job.id(), execution);
        }
    }

    /** Retries or buries a failed job; returns what became of it, or null when it is left for stop() to hand back. */
    private DelayQueueObserver.Outcome onFailure(Execution execution, Throwable ex) {
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
    private DelayQueueObserver.Outcome fail(Execution execution, String error, boolean nonRetryable) {
        StoredJob job = execution.job;
        int maxAttempts = endpoint.settings().maxAttempts();
        if (nonRetryable || job.attempts() >= maxAttempts) {
            logger.warn("Queue '" + queue() + "': job '" + job.id() + "' failed attempt " + job.attempts() + " of "
                    + maxAttempts + "; moving it to the dead set: " + error);
            complete(execution, () -> refusedIfFalse(store.bury(queue(), watchdog.instanceId(), job, error), job));
            return DelayQueueObserver.Outcome.DEAD;
        }
        Duration backoff = endpoint.settings().backoff().delayAfter(job.attempts(), ThreadLocalRandom.current().nextDouble());
        logger.info("Queue '" + queue() + "': job '" + job.id() + "' failed attempt " + job.attempts() + " of " + maxAttempts
                + "; retrying in " + backoff.toMillis() + " ms: " + error);
        complete(execution, () -> refusedIfFalse(store.retry(queue(), watchdog.instanceId(), job, error, backoff), job));
        return DelayQueueObserver.Outcome.RETRIED;
    }

    /**
     * Records the outcome of a job ({@link OutcomeRetry}); if that gives up, the job is handed back
     * before the next claim and delivered again.
     */
    private void complete(Execution execution, Runnable outcome) {
        RuntimeException failure = OutcomeRetry.run(outcome, () -> !running);
        if (failure != null) {
            StoredJob job = execution.job;
            logger.error("Queue '" + queue() + "': could not record the outcome of job '" + job.id()
                    + "'; it will be handed back and delivered again: " + failure.getMessage());
            inFlight.remove(job.id(), execution);
            heldUnknown = true;
        }
    }

    /** Says so when Redis refused an outcome: the job was recovered by another instance, or replaced. */
    private void refusedIfFalse(boolean recorded, StoredJob job) {
        if (!recorded) {
            logger.info("Queue '" + queue() + "': the outcome of job '" + job.id() + "' (attempt " + job.attempts()
                    + ") was refused: the job was no longer held by this instance");
        }
    }

    /** An error as logged and stored: control characters escaped (no forged log lines), at most 2000 characters. */
    private static String errorText(String text) {
        StringBuilder safe = new StringBuilder(Math.min(text.length(), MAX_ERROR_LENGTH) + 16);
        int i = 0;
        for (; i < text.length() && safe.length() < MAX_ERROR_LENGTH; i++) {
            char c = text.charAt(i);
            if (c == '\n') {
                safe.append("\\n");
            }
            else if (c == '\r') {
                safe.append("\\r");
            }
            else if (Character.isISOControl(c)) {
                safe.append(String.format("\\u%04x", (int) c));
            }
            else {
                safe.append(c);
            }
        }
        return i == text.length() ? safe.toString() : safe + "..."; // "..." only when something was cut
    }

    private static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private static void join(Thread thread, Duration timeout) {
        try {
            thread.join(timeout.toMillis());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits until no job is being handled here; returns false if some still are after {@code timeout}. */
    private boolean awaitHandlers(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!inFlight.isEmpty()) {
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            try {
                Thread.sleep(10);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return inFlight.isEmpty();
            }
        }
        return true;
    }

    private static Thread daemon(Runnable task, String name) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        return thread;
    }

    /**
     * One claimed job handed to a worker. Its outcome is recorded once: by the worker when the
     * handler returns or throws, or by the handler timeout, whichever settles it first.
     */
    private static final class Execution {

        final StoredJob job;
        private Thread handler;
        private ScheduledFuture<?> timeout;
        private boolean settled;
        private boolean shutdownInterrupt;
        private boolean permitKept;

        Execution(StoredJob job) {
            this.job = job;
        }

        synchronized void handlerStarted(Thread thread) {
            handler = thread;
        }

        synchronized void timeout(ScheduledFuture<?> future) {
            if (settled) {
                future.cancel(false);
            }
            else {
                timeout = future;
            }
        }

        /** Called by the worker when the handler is done; false if the timeout settled the job first. */
        synchronized boolean settle() {
            if (settled) {
                return false;
            }
            settled = true;
            handler = null;
            if (timeout != null) {
                timeout.cancel(false);
            }
            return true;
        }

        /**
         * Called when the timeout fires: settles the job and interrupts the handler, unless the
         * worker settled it first. Under the same lock as {@link #settle()}, so the interrupt
         * reaches the handler's thread before that thread can move on to another job.
         */
        synchronized boolean expire() {
            if (settled) {
                return false;
            }
            settled = true;
            if (handler != null) {
                handler.interrupt();
                handler = null;
            }
            return true;
        }

        /**
         * Interrupts the handler if it is still running (shutdown). The worker still records the
         * outcome: an ack if the handler returns, nothing if it throws (the job is handed back).
         */
        synchronized void interruptHandler() {
            if (!settled && handler != null) {
                shutdownInterrupt = true;
                handler.interrupt();
            }
        }

        synchronized boolean interruptedByShutdown() {
            return shutdownInterrupt;
        }

        synchronized void keepPermit() {
            permitKept = true;
        }

        /** Whether the handler's thread, abandoned after a timeout, gives the worker's permit back when it returns. */
        synchronized boolean permitKept() {
            return permitKept;
        }
    }
}
