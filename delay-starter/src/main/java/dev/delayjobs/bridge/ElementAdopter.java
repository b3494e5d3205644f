package dev.delayjobs.bridge;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.delayjobs.DelayQueueException;
import dev.delayjobs.redis.RedissonQueueStore;
import dev.delayjobs.redis.RedissonQueueStore.Adopted;
import dev.delayjobs.redis.RedissonQueueStore.Adoption;
import dev.delayjobs.redis.RedissonQueueStore.Element;
import dev.delayjobs.redis.RedissonQueueStore.Source;
import dev.delayjobs.threads.WorkerThreads;

/**
 * One thread per bridged queue with a handler here: waits until Redisson's transfer puts elements
 * in the target list and moves them into the native queue, where the queue's container claims them
 * with leases, retries and the dead set. It also moves elements that Redisson's transfer left in its
 * timeout set past their due time (its timer missed a wake message), so a stalled transfer delays
 * jobs by {@link #OVERDUE_AFTER} at most instead of stranding them.
 */
final class ElementAdopter {

    private static final Log logger = LogFactory.getLog(ElementAdopter.class);

    /** Elements per script call: a call then takes well under a millisecond. */
    static final int BATCH = 100;

    /** How long past its due time an element is left to Redisson's own transfer. */
    static final Duration OVERDUE_AFTER = Duration.ofSeconds(5);

    private static final Duration WAIT = Duration.ofSeconds(1);

    /** The longest pause after an unexpected failure. */
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

    /** Calls in a row on one source before the other gets its turn. */
    private static final int MAX_CALLS = 50;

    private final BridgedQueue queue;
    private final RedissonQueueStore store;
    private final ElementConversion conversion;
    private final WorkerThreads threads;
    private volatile boolean running;
    private Thread thread;

    ElementAdopter(BridgedQueue queue, RedissonQueueStore store, ElementConversion conversion, WorkerThreads threads) {
        this.queue = queue;
        this.store = store;
        this.conversion = conversion;
        this.threads = threads;
    }

    synchronized void start() {
        running = true;
        thread = threads.service("delay-bridge-" + queue.queue(), this::run);
        thread.setDaemon(true);
        thread.start();
    }

    /** Stops the thread; it is at most {@link #WAIT} into a wait, and a script it runs is atomic. */
    synchronized void stop() {
        running = false;
        if (thread != null) {
            try {
                thread.join(WAIT.multipliedBy(3).toMillis());
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            thread = null;
        }
    }

    /**
     * Moves elements until stopped. Nothing ends the thread while the bridge runs: Redis errors are
     * retried every second, and anything else that escapes a pass (a defect, an error of the JVM)
     * is logged and the next pass starts after a backoff of 1 s, doubling up to {@link #MAX_BACKOFF}.
     */
    private void run() {
        long nextOverdueCheck = 0;
        boolean failing = false;
        Duration backoff = WAIT;
        while (running) {
            try {
                drain(Source.TARGET);
                boolean more = false;
                if (System.nanoTime() - nextOverdueCheck >= 0) {
                    more = drain(Source.OVERDUE);
                    nextOverdueCheck = System.nanoTime() + (more ? 0 : WAIT.toNanos());
                }
                if (failing) {
                    logger.info("Queue '" + queue.queue() + "': reading the Redisson delayed queue works again");
                    failing = false;
                }
                backoff = WAIT;
                if (!more) {
                    store.awaitElements(queue.target(), WAIT);
                }
            }
            catch (DelayQueueException ex) {
                if (!failing) {
                    logger.warn("Queue '" + queue.queue() + "': cannot move elements of the Redisson delayed queue '"
                            + queue.target() + "' (retrying every second): " + ex.getMessage());
                    failing = true;
                }
                pause(WAIT);
            }
            catch (Throwable ex) {
                if (!running) {
                    return;
                }
                logger.error("Queue '" + queue.queue() + "': moving elements of the Redisson delayed queue '"
                        + queue.target() + "' failed; starting again in " + backoff.toSeconds() + "s", ex);
                pause(backoff);
                backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
            }
        }
    }

    /**
     * Moves elements from {@code source} until it has no more, or {@link #MAX_CALLS} calls; returns
     * whether some are left (a full last batch, or elements found deep in Redisson's pending list,
     * which later calls reach).
     */
    private boolean drain(Source source) {
        for (int calls = 0; running && calls < MAX_CALLS; calls++) {
            Pass pass = adoptOnce(store, queue, conversion, source);
            if (pass.read() < BATCH && pass.deferred() == 0) {
                return false;
            }
        }
        return running;
    }

    /** What one call read, and how many of those it left for a later call. */
    record Pass(int read, long deferred) {
    }

    /** Reads up to {@link #BATCH} elements of {@code source} and moves those still there. */
    static Pass adoptOnce(RedissonQueueStore store, BridgedQueue queue, ElementConversion conversion, Source source) {
        List<Element> elements = store.peek(queue.target(), source, BATCH, OVERDUE_AFTER);
        if (elements.isEmpty()) {
            return new Pass(0, 0);
        }
        List<Adoption> adoptions = conversion.convert(elements);
        Adopted adopted = store.adopt(queue.queue(), queue.target(), adoptions);
        if (adopted.dead() > 0) {
            String first = adoptions.stream().map(Adoption::error).filter(Objects::nonNull).findFirst().orElse("");
            logger.warn("Queue '" + queue.queue() + "': " + adopted.dead() + " element(s) of the Redisson delayed queue '"
                    + queue.target() + "' could not be read as the handler's payload and went to the dead set; the "
                    + "first: " + first);
        }
        return new Pass(elements.size(), adopted.deferred());
    }

    private void pause(Duration pause) {
        try {
            Thread.sleep(pause.toMillis());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }
}
