package dev.delayjobs.testing;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.JobInfo;
import dev.delayjobs.JobState;
import dev.delayjobs.partition.PartitionedQueues;
import dev.delayjobs.queue.QueueName;
import dev.delayjobs.redis.QueueTestOperations;
import dev.delayjobs.redis.QueueStats;
import dev.delayjobs.schedule.ScheduleTimer;

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
    private final StoredExamples examples;
    private final @Nullable ScheduleTimer schedules;

    DelayQueueTester(PartitionedQueues store, QueueTestOperations operations, DelayPublisher publisher, Duration timeout,
            StoredExamples examples, @Nullable ScheduleTimer schedules) {
        this.examples = examples;
        this.schedules = schedules;
        this.store = store;
        this.operations = operations;
        this.publisher = publisher;
        this.timeout = timeout;
    }

    /**
     * The same tester with another bound on its waits.
     *
     * @param timeout how long each {@code await...} call of the returned tester waits at most
     * @return a new tester on the same queues; this one keeps its bound
     * @throws IllegalArgumentException when {@code timeout} is null, zero or negative
     */
    public DelayQueueTester withTimeout(Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, was " + timeout);
        }
        return new DelayQueueTester(store, operations, publisher, timeout, examples, schedules);
    }

    /**
     * Makes every job of {@code queue} due within {@code window} from now due now, as if that
     * much time had passed: they go to the consumers at once. Returns how many jobs moved.
     *
     * <p>Every delayed job counts, retries waiting for their backoff included. A moved job's due
     * time becomes Redis's now, so lateness and {@link dev.delayjobs.DelayedJob#dueAt()} read as if
     * it had been published for now; its publish time is kept. Jobs due later than the window stay
     * as they are. All partitions of a partitioned queue are moved.
     *
     * <p>The ticks of the queue's schedules ({@link dev.delayjobs.Recurring}, {@code DelaySchedules})
     * that fall within the window are published first, one job per tick (its id names the tick), and
     * are moved with the rest; each schedule's next tick is then the first after the window.
     *
     * @param queue the queue's name
     * @param window how far ahead to look; {@link Duration#ZERO} moves only the jobs already due
     * @return how many jobs were made due
     * @throws IllegalArgumentException when {@code window} is null or negative
     * @throws dev.delayjobs.DelayQueueException when Redis cannot be reached
     */
    public long fastForward(String queue, Duration window) {
        if (window == null || window.isNegative()) {
            throw new IllegalArgumentException("window must be zero or positive, was " + window);
        }
        if (schedules != null) {
            schedules.publishTicksWithin(queue, window);
        }
        return store.onEveryPartition(QueueName.of(queue), partition -> operations.fastForward(partition, window)).stream()
                .mapToLong(Long::longValue).sum();
    }

    /**
     * Stores a payload as an older release of the application stored it: the JSON as it is, at
     * {@code version} of its type ({@link dev.delayjobs.PayloadVersion}), due now. The consumer brings
     * it up to its handler's version with the application's upcasters, as it would a job that waited
     * in Redis through a deploy.
     *
     * @param queue the queue's name
     * @param payloadJson the stored payload, JSON (see {@link #storeExample(String, String, int)} to read it from a file)
     * @param version the version it was published at, 1 or more
     * @return the job's id, for {@link #awaitHandled} or {@link #awaitDead}
     * @throws IllegalArgumentException when the JSON is null or the version below 1
     */
    public String storePayload(String queue, String payloadJson, int version) {
        return examples.store(queue, payloadJson, version, Duration.ZERO);
    }

    /**
     * {@link #storePayload} of a JSON file on the test classpath, such as
     * {@code "payloads/order-timeout/v1.json"} kept in {@code src/test/resources}: a payload an
     * older release stored, kept as the example its upcaster is tested against.
     *
     * @param queue the queue's name
     * @param classpathLocation the file's location on the classpath
     * @param version the version it was published at
     * @return the job's id
     * @throws IllegalArgumentException when there is no such file
     */
    public String storeExample(String queue, String classpathLocation, int version) {
        return examples.store(queue, StoredExamples.read(classpathLocation), version, Duration.ZERO);
    }

    /**
     * Asserts that every stored example of {@code type} still binds to it today: each file named
     * {@code v<version>.json} or {@code v<version>-<anything>.json} under {@code classpathFolder} is
     * brought from its version up to the type's with the application's upcasters and read as
     * {@code type}, as the consumer would (strict payloads included). No Redis involved.
     *
     * @param type the handler's payload type
     * @param classpathFolder where the examples are, e.g. {@code "payloads/order-timeout"}
     * @return how many examples were checked
     * @throws AssertionError naming each example that no longer binds and why (no payload text),
     *     or when there is none
     */
    public int assertExamplesBind(Class<?> type, String classpathFolder) {
        return examples.assertBind(type, classpathFolder);
    }

    /**
     * Waits until the job is handled: its handler returned and the job is gone (a cancelled job
     * is gone too). Fails at once when the job goes to the dead set, with its last error.
     *
     * <p>A job that was never published, or was handled before the call, counts as handled at
     * once: the wait cannot tell them apart. A keyed job with a successor (a publish with its key
     * that met it running) is gone only once the successor, which takes its key, is handled too.
     *
     * @param queue the queue the job was published to
     * @param id the id {@link DelayPublisher#publish} returned, or the job's business key
     * @throws AssertionError when the job goes to the dead set, or is still there (waiting,
     *     running or retrying) when the bound of {@link #withTimeout} runs out; the message says
     *     what was seen last
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

    /**
     * Waits until the job is in the dead set, and returns it (attempts, last error).
     *
     * @param queue the queue the job was published to
     * @param id the id {@link DelayPublisher#publish} returned, or the job's business key
     * @return the dead job, in state {@link JobState#DEAD}, with its attempts and last error
     * @throws AssertionError at once when the job does not exist (handled, cancelled or never
     *     published), or when it is not dead by the end of the bound of {@link #withTimeout}
     */
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

    /**
     * Waits until nothing of {@code queue} is ready, running or due: what was due has been handled.
     * Jobs that become due later, and dead jobs, do not count; prefetched jobs count as ready.
     *
     * @param queue the queue's name, all of its partitions
     * @throws AssertionError when the queue is not idle by the end of the bound of
     *     {@link #withTimeout}, with the counts seen last
     */
    public void awaitIdle(String queue) {
        await("queue '" + queue + "' to be idle", () -> {
            QueueStats stats = store.stats(QueueName.of(queue)).total();
            boolean due = stats.nextDueAt() >= 0 && stats.nextDueAt() <= stats.serverNow();
            return stats.ready() == 0 && stats.running() == 0 && !due ? Result.finished()
                    : Result.waiting(stats.ready() + " ready, " + stats.running() + " running" + (due ? ", delayed jobs due" : ""));
        });
    }

    /**
     * Waits until nothing of one group of {@code queue} ({@link dev.delayjobs.PublishRequest#group})
     * is ready, running or due: what of the group was due has been handled, whatever the other
     * groups still hold. Jobs of the group that become due later, and dead ones, do not count;
     * prefetched jobs count as ready. Use it when a test drives one tenant among others, or checks
     * that a flood in one group does not hold back another.
     *
     * @param queue the queue's name, all of its partitions
     * @param group the group's name
     * @throws IllegalArgumentException when {@code group} is null or blank
     * @throws AssertionError when the group still has jobs ready, running or due by the end of the
     *     bound of {@link #withTimeout}, with the count seen last
     */
    public void awaitGroupIdle(String queue, String group) {
        if (group == null || group.isBlank()) {
            throw new IllegalArgumentException("group must not be blank, was " + (group == null ? "null" : "'" + group + "'"));
        }
        await("group '" + group + "' of queue '" + queue + "' to be idle", () -> {
            long pending = store.onEveryPartition(QueueName.of(queue), partition -> operations.groupPending(partition, group))
                    .stream().mapToLong(Long::longValue).sum();
            return pending == 0 ? Result.finished() : Result.waiting(pending + " of the group ready, running or due");
        });
    }

    /**
     * Deletes every job of the queues and their counters (for a clean start between tests): the
     * delayed, ready, running and dead jobs, the errors, the counts and the consumer entries. The
     * queues stay known. Consumers still running keep their threads; what they had claimed is gone.
     *
     * @param queues the names of the queues to clear; none clears nothing
     */
    public void clear(String... queues) {
        for (String queue : queues) {
            clear(QueueName.of(queue));
        }
    }

    /**
     * Clears every queue known under the application's {@code delay.key-prefix}: each queue any
     * application with that prefix published to or consumed, as {@link #clear} does.
     */
    public void clearAll() {
        for (String queue : store.knownQueues()) {
            QueueName name;
            try {
                name = QueueName.of(queue);
            }
            catch (IllegalArgumentException notAQueueName) {
                continue; // an entry no publisher could have written names no keys of a queue
            }
            clear(name);
        }
    }

    private void clear(QueueName queue) {
        store.onEveryPartition(queue, partition -> {
            operations.clear(partition);
            return null;
        });
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
