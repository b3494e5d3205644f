package dev.delayjobs.listener;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.delayjobs.NonRetryableJobException;
import dev.delayjobs.core.DelayQueueObserver;
import dev.delayjobs.core.PayloadCodec;
import dev.delayjobs.redis.Claim;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.redis.StoredJob;
import dev.delayjobs.timer.QueueWatchdog;
import tools.jackson.core.JacksonException;

/**
 * Runs the handler of one queue in this instance: one claimer thread takes as many ready jobs as
 * there are free workers (one Redis connection, however many workers), and {@code concurrency}
 * workers call the handler, then ack, retry or bury each job.
 *
 * <p>A claim or an outcome whose reply is lost (a timeout, a dropped connection) leaves jobs
 * held by this live instance that no worker handles: the next claim first hands those back.
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

    private final Object lifecycle = new Object();
    private volatile boolean running;
    private Thread claimer;
    private ExecutorService workers;
    private Semaphore freeWorkers;
    private AckBatcher acks;
    /** Ids this instance is handling; anything else in its active list is held by mistake. */
    private final Set<String> inFlight = ConcurrentHashMap.newKeySet();
    /** Set when a claim or an outcome may have reached Redis without this instance knowing. */
    private volatile boolean heldUnknown;

    ListenerContainer(HandlerEndpoint endpoint, RedisJobStore store, QueueWatchdog watchdog, PayloadCodec codec,
            Duration shutdownTimeout, DelayQueueObserver observer) {
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
            freeWorkers = new Semaphore(settings.concurrency());
            acks = new AckBatcher(queue(), store, watchdog.instanceId(), job -> inFlight.remove(job.id()), lost -> {
                lost.forEach(job -> inFlight.remove(job.id()));
                heldUnknown = true;
            });
            AtomicInteger count = new AtomicInteger();
            workers = new ThreadPoolExecutor(settings.concurrency(), settings.concurrency(), 0, TimeUnit.MILLISECONDS,
                    new LinkedBlockingQueue<>(), task -> new Thread(task, "delay-" + queue() + "-" + count.incrementAndGet()));
            running = true;
            claimer = new Thread(this::claimLoop, "delay-" + queue() + "-claimer");
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
            workers.shutdown();
            boolean finished = awaitTermination(workers, shutdownTimeout);
            if (!finished) {
                logger.warn("Queue '" + queue() + "': handlers still running after " + shutdownTimeout
                        + "; interrupting them and handing their jobs back");
                workers.shutdownNow();
                finished = awaitTermination(workers, Duration.ofSeconds(5));
            }
            acks.stop(Duration.ofSeconds(10));
            try {
                if (finished) {
                    store.release(queue(), watchdog.instanceId());
                }
                else {
                    // handlers ignore the interrupt: handing their jobs back now would run them twice at
                    // once; they stay held, and other instances recover them when the lease expires
                    logger.warn("Queue '" + queue() + "': " + inFlight.size() + " handler(s) ignored the interrupt; "
                            + "their jobs are recovered by other instances when the heartbeat lease expires");
                    store.releaseAllBut(queue(), watchdog.instanceId(), List.copyOf(inFlight));
                }
            }
            catch (RuntimeException ex) {
                logger.warn("Queue '" + queue() + "': could not hand jobs back at shutdown; other instances recover "
                        + "them when the heartbeat lease expires: " + ex.getMessage());
            }
            watchdog.unwatch(queue());
        }
    }

    private void claimLoop() {
        Duration lease = watchdog.settings().heartbeatLease();
        while (running) {
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
                    store.releaseAllBut(queue(), watchdog.instanceId(), List.copyOf(inFlight));
                }
                claim = store.claim(queue(), watchdog.instanceId(), wanted, lease);
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
                    inFlight.add(job.id());
                    workers.execute(() -> handle(job, claim.serverNow(), claimedAt));
                }
            }
            catch (RejectedExecutionException ex) {
                // stop() gave up waiting for this thread and shut the workers down: the jobs not
                // started are still held and are handed back by stop()
                break;
            }
            // fewer than asked for: ready was empty when the claim ran (or held only stale ids), so
            // wait for it here rather than spend a claim call that finds nothing
            if (jobs.size() < wanted && running) {
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
    private void handle(StoredJob job, long claimServerNow, long claimedAt) {
        long started = System.nanoTime();
        boolean ackQueued = false;
        observer.started(queue(), Duration.ofMillis(Math.max(0, claimServerNow - job.dueAt()))
                .plusNanos(started - claimedAt));
        try {
            Object payload;
            try {
                payload = codec.read(job.payload(), endpoint.payloadType());
            }
            catch (RuntimeException ex) {
                // JacksonException, or whatever a custom deserializer throws: no retry can fix it
                String reason = ex instanceof JacksonException jackson ? jackson.getOriginalMessage() : ex.toString();
                String error = truncate("payload cannot be read as " + endpoint.payloadType().toCanonical() + ": " + reason);
                logger.error("Queue '" + queue() + "': job '" + job.id() + "' moves to the dead set: " + error);
                complete(job, () -> store.bury(queue(), watchdog.instanceId(), job, error));
                observer.finished(queue(), DelayQueueObserver.Outcome.DEAD, Duration.ofNanos(System.nanoTime() - started));
                return;
            }
            try {
                endpoint.invoke(job, payload);
            }
            catch (Throwable ex) {
                DelayQueueObserver.Outcome outcome = onFailure(job, ex);
                if (outcome != null) {
                    observer.finished(queue(), outcome, Duration.ofNanos(System.nanoTime() - started));
                }
                return;
            }
            // the id leaves inFlight once the ack is recorded; acks of several workers share a call
            acks.add(job);
            ackQueued = true;
            observer.finished(queue(), DelayQueueObserver.Outcome.COMPLETED, Duration.ofNanos(System.nanoTime() - started));
        }
        finally {
            if (!ackQueued) {
                inFlight.remove(job.id());
            }
            freeWorkers.release();
        }
    }

    /** Retries or buries a failed job; returns what became of it, or null when it is left for stop() to hand back. */
    private DelayQueueObserver.Outcome onFailure(StoredJob job, Throwable ex) {
        if (!running && Thread.currentThread().isInterrupted()) {
            // interrupted by stop(), not failed: stop() hands the job back without counting a failure
            logger.info("Queue '" + queue() + "': job '" + job.id() + "' interrupted by shutdown; handing it back");
            return null;
        }
        if (ex instanceof Error && !(ex instanceof AssertionError)) {
            logger.error("Queue '" + queue() + "': handler threw " + ex + " on job '" + job.id() + "'", ex);
        }
        String error = truncate(ex.getClass().getName() + ": " + ex.getMessage());
        int maxAttempts = endpoint.settings().maxAttempts();
        if (ex instanceof NonRetryableJobException || job.attempts() >= maxAttempts) {
            logger.warn("Queue '" + queue() + "': job '" + job.id() + "' failed attempt " + job.attempts() + " of "
                    + maxAttempts + "; moving it to the dead set: " + error);
            complete(job, () -> store.bury(queue(), watchdog.instanceId(), job, error));
            return DelayQueueObserver.Outcome.DEAD;
        }
        Duration backoff = endpoint.settings().backoff().delayAfter(job.attempts(), ThreadLocalRandom.current().nextDouble());
        logger.info("Queue '" + queue() + "': job '" + job.id() + "' failed attempt " + job.attempts() + " of " + maxAttempts
                + "; retrying in " + backoff.toMillis() + " ms: " + error);
        complete(job, () -> store.retry(queue(), watchdog.instanceId(), job, error, backoff));
        return DelayQueueObserver.Outcome.RETRIED;
    }

    /**
     * Records the outcome of a job, retrying while Redis is unreachable: a lost ack would leave the
     * job held by a live instance. An interrupt from {@link #stop()} does not cancel the recording
     * (the handler is done; only the outcome is left to store). Gives up after a minute, or a few
     * seconds when stopping; the job is then handed back and delivered again.
     */
    private void complete(StoredJob job, Runnable outcome) {
        boolean interrupted = false;
        long waitMs = 50;
        long started = System.nanoTime();
        try {
            while (true) {
                try {
                    outcome.run();
                    return;
                }
                catch (RuntimeException ex) {
                    interrupted |= Thread.interrupted();
                    long limit = running ? 60 : 5;
                    if (System.nanoTime() - started > TimeUnit.SECONDS.toNanos(limit)) {
                        logger.error("Queue '" + queue() + "': could not record the outcome of job '" + job.id()
                                + "'; it will be handed back and delivered again: " + ex.getMessage());
                        inFlight.remove(job.id());
                        heldUnknown = true;
                        return;
                    }
                    pause(Duration.ofMillis(waitMs));
                    interrupted |= Thread.interrupted();
                    waitMs = Math.min(waitMs * 2, 2000);
                }
            }
        }
        finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static String truncate(String text) {
        return text.length() <= MAX_ERROR_LENGTH ? text : text.substring(0, MAX_ERROR_LENGTH) + "...";
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

    private static boolean awaitTermination(ExecutorService executor, Duration timeout) {
        try {
            return executor.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
