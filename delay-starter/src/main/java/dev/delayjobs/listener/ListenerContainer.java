package dev.delayjobs.listener;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.delayjobs.core.DelayQueueObserver;
import dev.delayjobs.core.DurationText;
import dev.delayjobs.core.JobTracing;
import dev.delayjobs.core.PayloadCodec;
import dev.delayjobs.redis.QueueControls;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.timer.QueueWatchdog;

/**
 * Runs the handler of one queue in this instance, and starts and stops the parts that do it: the
 * {@link Claimer} (one thread taking as many ready jobs as there are free workers), the
 * {@link JobRunner} ({@code concurrency} workers calling the handler), the {@link AckBatcher}
 * (acks of several workers in one call) and the {@link OutcomeRecorder} (retries and the dead set),
 * which share the {@link HeldJobs}; the {@link ClaimGate} holds the claimer while the queue is
 * paused or rate limited.
 *
 * <p>Stopping stops claiming, waits for running handlers up to the shutdown timeout, interrupts
 * those still running, and hands every job still held back to ready at once.
 */
public final class ListenerContainer {

    private static final Log logger = LogFactory.getLog(ListenerContainer.class);

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
    // the parts of one start, replaced at the next
    private HeldJobs held;
    private ClaimGate gate;
    private AckBatcher acks;
    private JobRunner runner;
    private Claimer claimer;

    ListenerContainer(HandlerEndpoint endpoint, RedisJobStore store, QueueWatchdog watchdog, PayloadCodec codec,
            Duration shutdownTimeout, DelayQueueObserver observer, WorkerThreads workerThreads, JobTracing tracing,
            QueueControls controls) {
        this.endpoint = endpoint;
        this.store = store;
        this.watchdog = watchdog;
        this.codec = codec;
        this.shutdownTimeout = shutdownTimeout;
        this.observer = observer;
        this.workerThreads = workerThreads;
        this.tracing = tracing;
        this.controls = controls;
    }

    public String queue() {
        return endpoint.queue();
    }

    public QueueSettings settings() {
        return endpoint.settings();
    }

    /** The type the handler reads its payload as. */
    public java.lang.reflect.Type payloadType() {
        return endpoint.declaredPayloadType();
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
            HeldJobs jobs = new HeldJobs();
            held = jobs;
            acks = new AckBatcher(queue(), store, watchdog.instanceId(), jobs::settled, lost -> {
                lost.forEach(jobs::settled);
                jobs.markUnknown();
            });
            OutcomeRecorder outcomes = new OutcomeRecorder(endpoint, store, watchdog.instanceId(), jobs, () -> !running);
            runner = new JobRunner(endpoint, codec, tracing, observer, outcomes, acks, jobs, workerThreads);
            // what this instance id held before (a restart under a fixed delay.instance-id, or stop then
            // start) has no worker here: the claimer's first turn hands it back and claims above its fence
            jobs.markUnknown();
            claimer = new Claimer(endpoint, store, watchdog, gate, runner, jobs);
            running = true;
            claimer.start();
        }
    }

    public void stop() {
        synchronized (lifecycle) {
            if (!running) {
                return;
            }
            running = false;
            claimer.stop();
            gate.close();
            boolean finished = held.awaitEmpty(shutdownTimeout);
            if (!finished) {
                logger.warn("Queue '" + queue() + "': handlers still running after " + DurationText.of(shutdownTimeout)
                        + "; interrupting them and handing their jobs back");
                held.interruptAll();
                finished = held.awaitEmpty(Duration.ofSeconds(5));
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
                    logger.warn("Queue '" + queue() + "': " + held.size() + " handler(s) ignored the interrupt; "
                            + "their jobs are recovered by other instances when the heartbeat lease expires");
                    store.releaseAllBut(queue(), watchdog.instanceId(), held.ids());
                }
            }
            catch (RuntimeException ex) {
                logger.warn("Queue '" + queue() + "': could not hand jobs back at shutdown; other instances recover "
                        + "them when the heartbeat lease expires: " + ex.getMessage());
            }
            runner.shutdown();
        }
    }
}
