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

    private final BridgedQueue queue;
    private final RedissonQueueStore store;
    private final ElementConversion conversion;
    private volatile boolean running;
    private Thread thread;

    ElementAdopter(BridgedQueue queue, RedissonQueueStore store, ElementConversion conversion) {
        this.queue = queue;
        this.store = store;
        this.conversion = conversion;
    }

    synchronized void start() {
        running = true;
        thread = new Thread(this::run, "delay-bridge-" + queue.queue());
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

    private void run() {
        long nextOverdueCheck = 0;
        boolean failing = false;
        while (running) {
            try {
                drain(Source.TARGET);
                if (System.nanoTime() - nextOverdueCheck >= 0) {
                    drain(Source.OVERDUE);
                    nextOverdueCheck = System.nanoTime() + WAIT.toNanos();
                }
                if (failing) {
                    logger.info("Queue '" + queue.queue() + "': reading the Redisson delayed queue works again");
                    failing = false;
                }
                store.awaitElements(queue.target(), WAIT);
            }
            catch (DelayQueueException ex) {
                if (!failing) {
                    logger.warn("Queue '" + queue.queue() + "': cannot move elements of the Redisson delayed queue '"
                            + queue.target() + "' (retrying every second): " + ex.getMessage());
                    failing = true;
                }
                pause();
            }
        }
    }

    /** Moves elements from {@code source} until it has no more. */
    private void drain(Source source) {
        while (running && adoptOnce(store, queue, conversion, source) == BATCH) {
            // a full batch: there may be more
        }
    }

    /** Reads up to {@link #BATCH} elements of {@code source} and moves those still there; returns how many were read. */
    static int adoptOnce(RedissonQueueStore store, BridgedQueue queue, ElementConversion conversion, Source source) {
        List<Element> elements = store.peek(queue.target(), source, BATCH, OVERDUE_AFTER);
        if (elements.isEmpty()) {
            return 0;
        }
        List<Adoption> adoptions = conversion.convert(elements);
        Adopted adopted = store.adopt(queue.queue(), queue.target(), adoptions);
        if (adopted.dead() > 0) {
            String first = adoptions.stream().map(Adoption::error).filter(Objects::nonNull).findFirst().orElse("");
            logger.warn("Queue '" + queue.queue() + "': " + adopted.dead() + " element(s) of the Redisson delayed queue '"
                    + queue.target() + "' could not be read as the handler's payload and went to the dead set; the "
                    + "first: " + first);
        }
        return elements.size();
    }

    private void pause() {
        try {
            Thread.sleep(WAIT.toMillis());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }
}
