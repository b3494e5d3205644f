package dev.delayjobs.benchmark;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.redisson.api.RBlockingQueue;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RFuture;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * The anchor: Redisson's {@code RDelayedQueue} over an {@code RBlockingQueue}, consumed by 8
 * threads blocked in {@code take()}. The payload is a 100-character string that starts with the due
 * time (the queue keeps no due time of its own that a consumer can read).
 */
final class AnchorEngine implements Engine {

    private static final String QUEUE = "anchor";

    private final RedissonClient redisson;
    private final RBlockingQueue<String> destination;
    private volatile RDelayedQueue<String> delayed;
    private final List<Thread> consumers = new ArrayList<>();
    private volatile boolean running = true;

    AnchorEngine(RedissonClient redisson, int consumerThreads) {
        this.redisson = redisson;
        destination = redisson.getBlockingQueue(QUEUE, StringCodec.INSTANCE);
        delayed = newDelayedQueue();
        for (int i = 0; i < consumerThreads; i++) {
            Thread t = new Thread(this::consume, "anchor-consumer-" + (i + 1));
            t.setDaemon(true);
            t.start();
            consumers.add(t);
        }
    }

    @Override
    public String name() {
        return "RDelayedQueue";
    }

    @Override
    public void publishOne(long delayMs) {
        delayed.offer(payload(System.currentTimeMillis() + delayMs), delayMs, TimeUnit.MILLISECONDS);
    }

    @Override
    public void publishMany(long[] delaysMs) {
        List<CompletableFuture<Void>> pending = new ArrayList<>(delaysMs.length);
        for (long delay : delaysMs) {
            RFuture<Void> f = delayed.offerAsync(payload(System.currentTimeMillis() + delay), delay, TimeUnit.MILLISECONDS);
            pending.add(f.toCompletableFuture());
        }
        CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
    }

    /**
     * Replaces the delayed queue object, which stops its transfer task (a transfer script already
     * running in Redis finishes on its own). Used after a phase that was cut short.
     */
    void restartTransfer() {
        delayed.destroy();
        delayed = newDelayedQueue();
    }

    @SuppressWarnings("deprecation")
    private RDelayedQueue<String> newDelayedQueue() {
        return redisson.getDelayedQueue(destination);
    }

    @Override
    public void close() {
        running = false;
        consumers.forEach(Thread::interrupt);
        try {
            delayed.destroy();
        }
        catch (RuntimeException ignored) {
            // destroyed already
        }
    }

    private void consume() {
        while (running) {
            try {
                String value = destination.take();
                Lateness.record(Long.parseLong(value.substring(0, value.indexOf(':'))));
            }
            catch (InterruptedException ex) {
                return;
            }
            catch (RuntimeException ex) {
                if (running) {
                    Pace.sleepMs(100);
                }
            }
        }
    }

    private static String payload(long dueMs) {
        String head = dueMs + ":";
        return head + "y".repeat(PAYLOAD_BYTES - head.length());
    }
}
