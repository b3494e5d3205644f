package dev.delayjobs.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.delayjobs.core.DurationText;
import dev.delayjobs.core.JobEvents;
import dev.delayjobs.core.PayloadCodec;
import dev.delayjobs.partition.QueueLayout;
import dev.delayjobs.partition.QueueLayouts;
import dev.delayjobs.queue.Partition;
import dev.delayjobs.redis.QueueControls;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.threads.WorkerThreads;
import dev.delayjobs.timer.QueueWatchdog;

/**
 * Runs the handler of one queue in this instance, and starts and stops the parts that do it: per
 * partition of the queue (one for a queue that is not partitioned), a {@link PartitionConsumer}
 * with its claimer, runner, acker and outcome recorder, all sharing the queue's
 * {@code concurrency} workers ({@link QueueSlots}).
 *
 * <p>Stopping stops claiming, waits for running handlers up to the shutdown timeout, interrupts
 * those still running, and hands every job still held back to ready at once.
 */
public final class ListenerContainer {

    private static final Log logger = LogFactory.getLog(ListenerContainer.class);

    private final HandlerEndpoint endpoint;
    private final RedisJobStore store;
    private final QueueLayouts layouts;
    private final QueueWatchdog watchdog;
    private final PayloadCodec codec;
    private final Duration shutdownTimeout;
    private final JobEvents events;
    private final WorkerThreads workerThreads;
    private final QueueControls controls;

    private final Object lifecycle = new Object();
    private volatile boolean running;
    /** The consumers of one start, one per partition, replaced at the next. */
    private List<PartitionConsumer> consumers = List.of();

    ListenerContainer(HandlerEndpoint endpoint, RedisJobStore store, QueueLayouts layouts, QueueWatchdog watchdog,
            PayloadCodec codec, Duration shutdownTimeout, JobEvents events, WorkerThreads workerThreads,
            QueueControls controls) {
        this.endpoint = endpoint;
        this.store = store;
        this.layouts = layouts;
        this.watchdog = watchdog;
        this.codec = codec;
        this.shutdownTimeout = shutdownTimeout;
        this.events = events;
        this.workerThreads = workerThreads;
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

    /** How many partitions of the queue this container consumes (0 before its first start). */
    public int partitions() {
        return consumers.size();
    }

    /**
     * Starts consuming every partition of the queue.
     * @throws dev.delayjobs.partition.PartitionLayoutException when the queue is laid out in another
     *     partition count that still has jobs or consumers
     */
    public void start() {
        synchronized (lifecycle) {
            if (running) {
                return;
            }
            // before any job: the first jobs of a burst would otherwise build the payload's reader
            codec.prepare(endpoint.payloadType());
            QueueLayout layout = layouts.declare(endpoint.queueName());
            store.registerQueue(endpoint.queueName());
            events.consuming(queue());
            QueueSlots slots = new QueueSlots(endpoint.settings().concurrency(), layout.size());
            PendingAcks pendingAcks = new PendingAcks(); // one cap for the queue, whatever its partitions
            List<PartitionConsumer> started = new ArrayList<>();
            running = true;
            try {
                for (Partition partition : layout.all()) {
                    PartitionConsumer consumer = new PartitionConsumer(partition, endpoint, store.partition(partition), watchdog,
                            controls, codec, events, workerThreads, slots, pendingAcks, () -> !running);
                    // listed before it starts: a start that fails half-way is stopped with the others
                    started.add(consumer);
                    consumer.start();
                }
            }
            catch (RuntimeException ex) {
                // none or all: the partitions started already stop, and hand their jobs back
                consumers = List.copyOf(started);
                stopConsumers();
                throw ex;
            }
            consumers = List.copyOf(started);
        }
    }

    public void stop() {
        synchronized (lifecycle) {
            if (running) {
                stopConsumers();
            }
        }
    }

    private void stopConsumers() {
        running = false;
        consumers.forEach(PartitionConsumer::stopClaiming);
        long deadline = System.nanoTime() + shutdownTimeout.toNanos();
        boolean finished = true;
        for (PartitionConsumer consumer : consumers) {
            finished &= consumer.awaitHandlers(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        }
        if (!finished) {
            logger.warn("Queue '" + queue() + "': handlers still running after " + DurationText.of(shutdownTimeout)
                    + "; interrupting them and handing their jobs back");
            consumers.forEach(PartitionConsumer::interruptHandlers);
            long grace = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            for (PartitionConsumer consumer : consumers) {
                consumer.awaitHandlers(Duration.ofNanos(Math.max(0, grace - System.nanoTime())));
            }
        }
        consumers.forEach(consumer -> consumer.finish(consumer.handlersLeft() == 0));
    }
}
