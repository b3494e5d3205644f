package dev.delayjobs.bridge;

import java.time.Duration;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.delayjobs.DelayQueueException;
import dev.delayjobs.core.PayloadCodec;
import dev.delayjobs.listener.ListenerContainer;
import dev.delayjobs.listener.ListenerContainerRegistry;
import dev.delayjobs.queue.QueueName;
import dev.delayjobs.redis.RedissonQueueStore;
import dev.delayjobs.redis.RedissonQueueStore.Adopted;
import dev.delayjobs.redis.RedissonQueueStore.Element;
import dev.delayjobs.redis.RedissonQueueStore.Source;

/**
 * Moves every element of a bridged queue's Redisson {@code RDelayedQueue} into the native queue:
 * each waiting element becomes a job with the same due time, each element of the target list a
 * ready job. It works in chunks of {@link #CHUNK}: every chunk is one atomic script call, so the
 * migration can be interrupted at any point and run again (nothing lost, nothing doubled), and no
 * call holds Redis for long. Elements are read in offer order from the head of Redisson's pending
 * list, where removing them costs little.
 *
 * <p>Run it from an instance with the queue's {@code @DelayedHandler}: elements are read as the
 * handler's payload type. Afterwards, once no old producer offers to the {@code RDelayedQueue}
 * any more, removing {@code delay.queues.<queue>.redisson-delayed-queue} makes the queue native.
 */
public final class RedissonQueueMigration {

    private static final Log logger = LogFactory.getLog(RedissonQueueMigration.class);

    /** Elements per script call: about 5 ms of Redis time on average, 24 ms at most, with a 1M backlog (docs/benchmarks.md). */
    static final int CHUNK = 500;

    private static final long PROGRESS_EVERY_NANOS = Duration.ofSeconds(5).toNanos();

    private final BridgedQueues queues;
    private final RedissonQueueStore store;
    private final ListenerContainerRegistry registry;
    private final PayloadCodec payloads;

    public RedissonQueueMigration(BridgedQueues queues, RedissonQueueStore store, ListenerContainerRegistry registry,
            PayloadCodec payloads) {
        this.queues = queues;
        this.store = store;
        this.registry = registry;
        this.payloads = payloads;
    }

    /**
     * What a migration did.
     *
     * @param queue the queue
     * @param jobs jobs created from elements
     * @param dead elements that could not be read, now dead jobs with the reason
     * @param calls script calls made (reads and moves)
     * @param longestCall the longest of those calls, as this instance timed it (round trip included)
     * @param complete whether the Redisson queue was empty at the end; {@code false} when the
     *     calling thread was interrupted, in which case running it again carries on
     */
    public record Result(String queue, long jobs, long dead, long calls, Duration longestCall, boolean complete) {
    }

    /**
     * Migrates {@code queue}. Stops early, with {@code complete = false}, when the calling thread is
     * interrupted.
     * @throws IllegalArgumentException if the queue is not bridged
     * @throws IllegalStateException if the queue has no handler in this application
     */
    public Result migrate(String queue) {
        BridgedQueue bridged = queues.find(QueueName.of(queue)).orElseThrow(() -> new IllegalArgumentException("Queue '" + queue
                + "' does not bridge a Redisson RDelayedQueue (no delay.queues." + queue + ".redisson-delayed-queue): "
                + "there is nothing to migrate"));
        ListenerContainer container = registry.getContainer(queue).orElseThrow(() -> new IllegalStateException("Queue '"
                + queue + "' has no @DelayedHandler in this application: migrate it from an instance that handles it, "
                + "since elements are read as the handler's payload type"));
        ElementConversion conversion = new ElementConversion(bridged.format(), payloads, container.payloadType());
        Progress progress = new Progress(queue);
        logger.info("Queue '" + queue + "': migrating the Redisson delayed queue '" + bridged.target() + "' ("
                + store.depth(bridged.target()).delayed() + " waiting, " + store.depth(bridged.target()).ready()
                + " due) into the native queue");
        for (Source source : List.of(Source.PENDING, Source.TARGET)) {
            while (true) {
                if (Thread.currentThread().isInterrupted()) {
                    return interrupted(progress);
                }
                List<Element> elements;
                try {
                    long start = System.nanoTime();
                    elements = store.peek(bridged.target(), source, CHUNK, Duration.ZERO);
                    progress.called(start);
                    if (elements.isEmpty()) {
                        break;
                    }
                    start = System.nanoTime();
                    Adopted adopted = store.adopt(queue, bridged.target(), conversion.convert(elements));
                    progress.called(start);
                    progress.moved(adopted);
                }
                catch (DelayQueueException ex) {
                    if (!interruptedDuring(ex)) {
                        throw ex;
                    }
                    // interrupted while waiting for a reply: the chunk moved entirely or not at all
                    Thread.currentThread().interrupt();
                    return interrupted(progress);
                }
            }
        }
        logger.info("Queue '" + queue + "': migration complete: " + progress.jobs + " job(s), " + progress.dead
                + " unreadable element(s) in the dead set, longest Redis call " + progress.longest.toMillis() + " ms");
        return progress.result(true);
    }

    private static boolean interruptedDuring(Throwable ex) {
        for (Throwable t = ex; t != null; t = t.getCause()) {
            if (t instanceof InterruptedException) {
                return true;
            }
        }
        return Thread.currentThread().isInterrupted();
    }

    private static Result interrupted(Progress progress) {
        logger.info("Queue '" + progress.queue + "': migration interrupted after " + progress.jobs + " job(s); running it "
                + "again carries on");
        return progress.result(false);
    }

    /** Counts, the longest call, and a log line every few seconds. */
    private static final class Progress {

        private final String queue;
        private long jobs;
        private long dead;
        private long calls;
        private Duration longest = Duration.ZERO;
        private long lastLog = System.nanoTime();

        Progress(String queue) {
            this.queue = queue;
        }

        void called(long startNanos) {
            calls++;
            Duration took = Duration.ofNanos(System.nanoTime() - startNanos);
            if (took.compareTo(longest) > 0) {
                longest = took;
            }
        }

        void moved(Adopted adopted) {
            jobs += adopted.created();
            dead += adopted.dead();
            if (System.nanoTime() - lastLog > PROGRESS_EVERY_NANOS) {
                lastLog = System.nanoTime();
                logger.info("Queue '" + queue + "': migrated " + jobs + " job(s) so far");
            }
        }

        Result result(boolean complete) {
            return new Result(queue, jobs, dead, calls, longest, complete);
        }
    }
}
