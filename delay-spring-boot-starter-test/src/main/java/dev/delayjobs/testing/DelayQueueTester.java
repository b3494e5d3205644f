package dev.delayjobs.testing;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.JobInfo;
import dev.delayjobs.JobState;
import dev.delayjobs.partition.PartitionedQueues;
import dev.delayjobs.redis.QueueTestOperations;
import dev.delayjobs.redis.QueueStats;

/**
 * Drives the application's delay queues from a test, on the real Redis: makes jobs due now
 * instead of waiting for them, waits for a job's outcome or for a queue to go idle, and clears
 * queues between tests. Injected like any bean; every wait has a bound ({@link #withTimeout}, 10 s
 * by default) and fails with an {@link AssertionError} that says what it saw last.
 *
 * <pre>{@code
 * String id = checkout.placeOrder();                // publishes a 30-minute timeout
 * tester.fastForward("order-timeout", Duration.ofMinutes(30));
 * tester.awaitHandled("order-timeout", id);
 * assertThat(orders.status(id)).isEqualTo(CLOSED);
 * }</pre>
 */
public final class DelayQueueTester {

    private static final Duration POLL = Duration.ofMillis(20);

    private final PartitionedQueues store;
    private final QueueTestOperations operations;
    private final DelayPublisher publisher;
    private final Duration timeout;

    DelayQueueTester(PartitionedQueues store, QueueTestOperations operations, DelayPublisher publisher, Duration timeout) {
        this.store = store;
        this.operations = operations;
        this.publisher = publisher;
        this.timeout = timeout;
    }

    /** The same tester with another bound on its waits. */
    public DelayQueueTester withTimeout(Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, was " + timeout);
        }
        return new DelayQueueTester(store, operations, publisher, timeout);
    }

    /**
     * Makes every job of {@code queue} due within {@code window} from now due now, as if that
     * much time had passed: they go to the consumers at once. Returns how many jobs moved.
     */
    public long fastForward(String queue, Duration window) {
        if (window == null || window.isNegative()) {
            throw new IllegalArgumentException("window must be zero or positive, was " + window);
        }
        long moved = 0;
        for (String partition : store.layout(queue).partitions()) {
            moved += operations.fastForward(partition, window);
        }
        return moved;
    }

    /**
     * Waits until the job is handled: its handler returned and the job is gone (a cancelled job
     * is gone too). Fails at once when the job goes to the dead set, with its last error.
     */
    public void awaitHandled(String queue, String id) {
        await("job '" + id + "' of queue '" + queue + "' to be handled", () -> {
            Optional<JobInfo> job = publisher.find(queue, id);
            if (job.isPresent() && job.get().state() == JobState.DEAD) {
                throw new AssertionError("job '" + id + "' of queue '" + queue + "' went to the dead set after "
                        + job.get().attempts() + " attempt(s): " + job.get().lastError());
            }
            return job.isEmpty() ? Result.finished() : Result.waiting(job.get().state() + ", attempts " + job.get().attempts());
        });
    }

    /** Waits until the job is in the dead set, and returns it (attempts, last error). */
    public JobInfo awaitDead(String queue, String id) {
        JobInfo[] dead = new JobInfo[1];
        await("job '" + id + "' of queue '" + queue + "' to go to the dead set", () -> {
            Optional<JobInfo> job = publisher.find(queue, id);
            if (job.isEmpty()) {
                throw new AssertionError("job '" + id + "' of queue '" + queue + "' does not exist: it was handled, "
                        + "cancelled or never published");
            }
            dead[0] = job.get();
            return job.get().state() == JobState.DEAD ? Result.finished() : Result.waiting(job.get().state().toString());
        });
        return dead[0];
    }

    /** Waits until nothing of {@code queue} is ready, running or due: what was due has been handled. */
    public void awaitIdle(String queue) {
        await("queue '" + queue + "' to be idle", () -> {
            QueueStats stats = store.stats(queue).total();
            boolean due = stats.nextDueAt() >= 0 && stats.nextDueAt() <= stats.serverNow();
            return stats.ready() == 0 && stats.running() == 0 && !due ? Result.finished()
                    : Result.waiting(stats.ready() + " ready, " + stats.running() + " running" + (due ? ", delayed jobs due" : ""));
        });
    }

    /** Deletes every job of the queues and their counters (for a clean start between tests). */
    public void clear(String... queues) {
        for (String queue : queues) {
            store.layout(queue).partitions().forEach(operations::clear);
        }
    }

    /** Clears every queue known under the application's {@code delay.key-prefix}. */
    public void clearAll() {
        clear(store.knownQueues().toArray(String[]::new));
    }

    private void await(String what, Supplier<Result> check) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Result last;
        while (true) {
            last = check.get();
            if (last.done) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Waited " + timeout.toMillis() + " ms for " + what + "; last seen: " + last.seen);
            }
            try {
                Thread.sleep(POLL.toMillis()); // a poll interval, not a synchronization: the bound is the deadline
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for " + what, ex);
            }
        }
    }

    private record Result(boolean done, String seen) {

        static Result finished() {
            return new Result(true, null);
        }

        static Result waiting(String seen) {
            return new Result(false, seen);
        }
    }
}
