package dev.delayjobs.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.JobInfo;
import dev.delayjobs.PublishRequest;
import dev.delayjobs.partition.PartitionedQueues;
import dev.delayjobs.payload.PayloadVersions;
import dev.delayjobs.queue.QueueName;
import dev.delayjobs.redis.NewJob;
import dev.delayjobs.redis.RedisJobStore;

/**
 * The {@link DelayPublisher} of the starter: checks every argument, sends the jobs that wait for a
 * transaction's commit after it, and has the rest stored at once ({@link RoutedPublish}: in script
 * calls that concurrent publishes to the same partition share).
 */
public final class RedisDelayPublisher implements DelayPublisher {

    private static final Log logger = LogFactory.getLog(RedisDelayPublisher.class);

    private final RedisJobStore store;
    private final PartitionedQueues queues;
    private final RoutedPublish routed;
    private final PayloadCodec codec;
    private final PublishDeferral deferral;
    private final boolean afterCommitByDefault;
    private final JobEvents events;

    /**
     * @param events traces each publish call (giving the headers its jobs carry) and tells the observers what was stored
     * @param deferral where publishes that wait for a transaction's commit go
     * @param afterCommitByDefault whether a request that does not choose waits for the commit
     */
    public RedisDelayPublisher(RedisJobStore store, PartitionedQueues queues, PayloadCodec codec, JobEvents events,
            PublishDeferral deferral, boolean afterCommitByDefault) {
        this.events = events;
        this.store = store;
        this.queues = queues;
        this.routed = new RoutedPublish(queues, new PublishCoalescer(store), events);
        this.codec = codec;
        this.deferral = deferral;
        this.afterCommitByDefault = afterCommitByDefault;
    }

    @Override
    public String publish(String queue, Object payload, Duration delay) {
        return publish(queue, PublishRequest.of(payload).delay(JobArguments.delay(delay)));
    }

    @Override
    public String publish(String queue, Object payload, Duration delay, String key) {
        return publish(queue, PublishRequest.of(payload).delay(JobArguments.delay(delay)).key(JobArguments.id(key)));
    }

    @Override
    public String publishAt(String queue, Object payload, Instant dueAt) {
        return publish(queue, PublishRequest.of(payload).at(JobArguments.dueAt(dueAt)));
    }

    @Override
    public String publishAt(String queue, Object payload, Instant dueAt, String key) {
        return publish(queue, PublishRequest.of(payload).at(JobArguments.dueAt(dueAt)).key(JobArguments.id(key)));
    }

    @Override
    public String publish(String queue, PublishRequest request) {
        return publishAll(queue, List.of(JobArguments.request(request))).get(0);
    }

    @Override
    public List<String> publishAll(String queue, List<PublishRequest> requests) {
        Checked checked = check(queue, requests);
        if (checked.jobs.isEmpty()) {
            return List.of();
        }
        store.registerQueue(checked.queue);
        return events.publish(queue, checked.jobs.size(), headers -> storeNowOrAfterCommit(checked.carrying(headers)));
    }

    /**
     * {@link #publishAll} without blocking a thread, for the reactive publisher: the same checks
     * (thrown at once), the same routing and coalescing; the jobs that wait for a commit are handed
     * to {@code deferral}. Completes on Redisson's I/O thread.
     */
    CompletableFuture<List<String>> publishAllAsync(String queue, List<PublishRequest> requests, AsyncDeferral deferral) {
        Checked checked = check(queue, requests);
        if (checked.jobs.isEmpty()) {
            return CompletableFuture.completedFuture(List.of());
        }
        return events.publishAsync(queue, checked.jobs.size(), headers -> store.registerQueueAsync(checked.queue)
                .thenCompose(registered -> storeNowOrAfterCommitAsync(checked.carrying(headers), deferral)));
    }

    /** Every request checked and turned into a job, or the first bad one named. */
    private Checked check(String queue, List<PublishRequest> requests) {
        QueueName name = QueueName.of(queue);
        if (requests == null) {
            throw new IllegalArgumentException("requests must not be null");
        }
        int count = requests.size();
        List<NewJob> jobs = new ArrayList<>(count);
        boolean[] generated = new boolean[count];
        int[] versions = new int[count];
        List<Integer> later = new ArrayList<>();
        List<Integer> now = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            try {
                PublishRequest request = JobArguments.request(requests.get(i));
                generated[i] = request.key() == null;
                jobs.add(toJob(request));
                versions[i] = PayloadVersions.of(request.payload().getClass());
                Boolean choice = request.afterCommitChoice();
                boolean waitForCommit = choice != null ? choice : afterCommitByDefault;
                (waitForCommit ? later : now).add(i);
            }
            catch (IllegalArgumentException ex) {
                throw new IllegalArgumentException("request " + i + ": " + ex.getMessage(), ex);
            }
        }
        return new Checked(name, jobs, generated, versions, later, now);
    }

    /**
     * A checked publish: its jobs, which ids were generated, each payload's version, and the
     * positions of those that wait for the commit and not.
     */
    private record Checked(QueueName queue, List<NewJob> jobs, boolean[] generated, int[] versions, List<Integer> later,
            List<Integer> now) {

        /** The jobs, each carrying {@code headers} and its payload's version ({@link PayloadVersions}: only above 1). */
        Checked carrying(Map<String, String> headers) {
            List<NewJob> carrying = new ArrayList<>(jobs.size());
            for (int i = 0; i < jobs.size(); i++) {
                Map<String, String> stamped = PayloadVersions.stamped(headers, versions[i]);
                carrying.add(stamped.isEmpty() ? jobs.get(i) : jobs.get(i).carrying(stamped));
            }
            return new Checked(queue, carrying, generated, versions, later, now);
        }

        List<NewJob> waiting() {
            return pick(jobs, later);
        }

        /** Every id in order: those stored now from {@code stored}, those waiting for the commit from their jobs. */
        List<String> ids(List<String> stored, List<NewJob> waiting) {
            String[] ids = new String[jobs.size()];
            for (int i = 0; i < now.size(); i++) {
                ids[now.get(i)] = stored.get(i);
            }
            for (int i = 0; i < later.size(); i++) {
                ids[later.get(i)] = waiting.get(i).id();
            }
            return List.of(ids);
        }
    }

    /** Stores the jobs at {@code now} positions at once and those at {@code later} after the commit; returns every id in order. */
    private List<String> storeNowOrAfterCommit(Checked checked) {
        if (!checked.later.isEmpty()) {
            List<NewJob> waiting = checked.waiting();
            boolean[] waitingGenerated = pick(checked.generated, checked.later);
            if (deferral.deferToCommit(() -> afterCommitStored(checked.queue, waiting,
                    routed.store(checked.queue, waiting, waitingGenerated)))) {
                return checked.ids(routed.store(checked.queue, pick(checked.jobs, checked.now), pick(checked.generated, checked.now)),
                        waiting);
            }
        }
        return routed.store(checked.queue, checked.jobs, checked.generated);
    }

    /** {@link #storeNowOrAfterCommit} without blocking: {@code deferral} says whether the waiting jobs were deferred. */
    private CompletableFuture<List<String>> storeNowOrAfterCommitAsync(Checked checked, AsyncDeferral deferral) {
        if (checked.later.isEmpty()) {
            return routed.storeAsync(checked.queue, checked.jobs, checked.generated);
        }
        List<NewJob> waiting = checked.waiting();
        boolean[] waitingGenerated = pick(checked.generated, checked.later);
        return deferral.deferToCommit(() -> routed.storeAsync(checked.queue, waiting, waitingGenerated)
                .thenAccept(stored -> afterCommitStored(checked.queue, waiting, stored))).thenCompose(deferred -> deferred
                        ? routed.storeAsync(checked.queue, pick(checked.jobs, checked.now), pick(checked.generated, checked.now))
                                .thenApply(stored -> checked.ids(stored, waiting))
                        : routed.storeAsync(checked.queue, checked.jobs, checked.generated));
    }

    /**
     * After jobs whose ids the caller already has were stored: a generated id that clashed (72
     * random bits: next to never) was drawn again rather than the job lost; the caller's id then
     * names no job. A failure to store propagates to the code that committed the transaction.
     */
    private static void afterCommitStored(QueueName queue, List<NewJob> jobs, List<String> stored) {
        for (int i = 0; i < jobs.size(); i++) {
            if (!stored.get(i).equals(jobs.get(i).id())) {
                logger.error("Queue '" + queue + "': the generated id '" + jobs.get(i).id() + "' of a job published "
                        + "after commit met an existing job; the job was stored as '" + stored.get(i) + "' instead");
            }
        }
    }

    /**
     * Where the reactive publisher hands the jobs that wait for a transaction's commit: completes
     * with whether they were deferred ({@code false}: no transaction, they are stored now with the rest).
     */
    @FunctionalInterface
    interface AsyncDeferral {

        AsyncDeferral NONE = publish -> CompletableFuture.completedFuture(false);

        CompletableFuture<Boolean> deferToCommit(Supplier<CompletableFuture<Void>> publish);
    }

    /** The same lookups as {@link #cancel}, {@link #reschedule} and {@link #find}, for the reactive publisher. */
    PartitionedQueues queues() {
        return queues;
    }

    static <T> List<T> pick(List<T> all, List<Integer> positions) {
        List<T> picked = new ArrayList<>(positions.size());
        positions.forEach(i -> picked.add(all.get(i)));
        return picked;
    }

    private static boolean[] pick(boolean[] all, List<Integer> positions) {
        boolean[] picked = new boolean[positions.size()];
        for (int i = 0; i < picked.length; i++) {
            picked[i] = all[positions.get(i)];
        }
        return picked;
    }

    @Override
    public boolean cancel(String queue, String id) {
        return queues.cancel(QueueName.of(queue), JobArguments.id(id));
    }

    @Override
    public boolean reschedule(String queue, String id, Instant dueAt) {
        return queues.reschedule(QueueName.of(queue), JobArguments.id(id), false, JobArguments.dueAt(dueAt).toEpochMilli());
    }

    @Override
    public boolean reschedule(String queue, String id, Duration delay) {
        return queues.reschedule(QueueName.of(queue), JobArguments.id(id), true, JobArguments.delay(delay).toMillis());
    }

    @Override
    public Optional<JobInfo> find(String queue, String id) {
        return queues.find(QueueName.of(queue), JobArguments.id(id));
    }

    private NewJob toJob(PublishRequest request) {
        String id = request.key() != null ? JobArguments.id(request.key()) : newId();
        // without a key there is nothing to replace: a generated id that clashes is drawn again instead
        boolean keyed = request.key() != null;
        boolean replace = keyed && request.isReplaceExisting();
        String group = request.group() == null ? null : JobArguments.group(request.group());
        String json = codec.write(request.payload());
        if (request.dueAt() != null) {
            return new NewJob(id, false, JobArguments.dueAt(request.dueAt()).toEpochMilli(), replace, json, !keyed, group);
        }
        return new NewJob(id, true, JobArguments.delay(request.delay()).toMillis(), replace, json, !keyed, group);
    }

    /**
     * 72 random bits, URL-safe Base64: 12 characters. Redis then keeps each copy of the id (the jobs
     * hash field and the delayed member) in a 16-byte allocation instead of 32. A clash with a job
     * that exists is detected at publish and drawn again.
     */
    public static String newId() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        byte[] bytes = new byte[9];
        random.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
