package dev.delayjobs.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayQueueException;
import dev.delayjobs.JobInfo;
import dev.delayjobs.PublishRequest;
import dev.delayjobs.partition.PartitionedQueues;
import dev.delayjobs.partition.QueueLayout;
import dev.delayjobs.redis.LayoutChangedException;
import dev.delayjobs.redis.NewJob;
import dev.delayjobs.redis.PublishOutcome;
import dev.delayjobs.redis.RedisJobStore;

/**
 * The {@link DelayPublisher} of the starter: checks every argument, then stores the jobs in one
 * script call, which concurrent publishes to the same queue share ({@link PublishCoalescer}).
 */
public final class RedisDelayPublisher implements DelayPublisher {

    private static final Log logger = LogFactory.getLog(RedisDelayPublisher.class);

    /** Jobs per script call in {@link #publishAll}: bounds how long one call holds Redis. */
    static final int BATCH_CHUNK = 500;

    private final RedisJobStore store;
    private final PartitionedQueues queues;
    private final PublishCoalescer coalescer;
    private final PayloadCodec codec;
    private final DelayQueueObserver observer;
    private final PublishDeferral deferral;
    private final boolean afterCommitByDefault;
    private final JobTracing tracing;

    /**
     * @param deferral where publishes that wait for a transaction's commit go
     * @param afterCommitByDefault whether a request that does not choose waits for the commit
     * @param tracing observes each publish call and gives the headers its jobs carry
     */
    public RedisDelayPublisher(RedisJobStore store, PartitionedQueues queues, PayloadCodec codec, DelayQueueObserver observer,
            PublishDeferral deferral, boolean afterCommitByDefault, JobTracing tracing) {
        this.tracing = tracing;
        this.store = store;
        this.queues = queues;
        this.coalescer = new PublishCoalescer(store);
        this.codec = codec;
        this.observer = observer;
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
        return publish(queue, PublishRequest.of(payload).at(dueAtArgument(dueAt)));
    }

    @Override
    public String publishAt(String queue, Object payload, Instant dueAt, String key) {
        return publish(queue, PublishRequest.of(payload).at(dueAtArgument(dueAt)).key(JobArguments.id(key)));
    }

    @Override
    public String publish(String queue, PublishRequest request) {
        return publishAll(queue, List.of(requestArgument(request))).get(0);
    }

    @Override
    public List<String> publishAll(String queue, List<PublishRequest> requests) {
        JobArguments.queue(queue);
        if (requests == null) {
            throw new IllegalArgumentException("requests must not be null");
        }
        int count = requests.size();
        List<NewJob> jobs = new ArrayList<>(count);
        boolean[] generated = new boolean[count];
        List<Integer> later = new ArrayList<>();
        List<Integer> now = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            try {
                PublishRequest request = requestArgument(requests.get(i));
                generated[i] = request.key() == null;
                jobs.add(toJob(request));
                Boolean choice = request.afterCommitChoice();
                boolean waitForCommit = choice != null ? choice : afterCommitByDefault;
                (waitForCommit ? later : now).add(i);
            }
            catch (IllegalArgumentException ex) {
                throw new IllegalArgumentException("request " + i + ": " + ex.getMessage(), ex);
            }
        }
        if (jobs.isEmpty()) {
            return List.of();
        }
        store.registerQueue(queue);
        return tracing.publish(queue, jobs.size(), headers -> storeNowOrAfterCommit(queue,
                headers.isEmpty() ? jobs : jobs.stream().map(job -> job.carrying(headers)).toList(), generated, later, now));
    }

    /** Stores the jobs at {@code now} positions at once and those at {@code later} after the commit; returns every id in order. */
    private List<String> storeNowOrAfterCommit(String queue, List<NewJob> jobs, boolean[] generated, List<Integer> later,
            List<Integer> now) {
        int count = jobs.size();
        if (!later.isEmpty()) {
            List<NewJob> waiting = pick(jobs, later);
            boolean[] waitingGenerated = pick(generated, later);
            if (deferral.deferToCommit(() -> storeAfterCommit(queue, waiting, waitingGenerated))) {
                List<String> stored = store(queue, pick(jobs, now), pick(generated, now));
                String[] ids = new String[count];
                for (int i = 0; i < now.size(); i++) {
                    ids[now.get(i)] = stored.get(i);
                }
                for (int i = 0; i < later.size(); i++) {
                    ids[later.get(i)] = waiting.get(i).id();
                }
                return List.of(ids);
            }
        }
        return store(queue, jobs, generated);
    }

    /** Stores jobs in chunks; returns their ids in order (a generated id that clashed is drawn again). */
    private List<String> store(String queue, List<NewJob> jobs, boolean[] generated) {
        List<String> ids = new ArrayList<>(jobs.size());
        for (int from = 0; from < jobs.size(); from += BATCH_CHUNK) {
            List<NewJob> chunk = new ArrayList<>(jobs.subList(from, Math.min(jobs.size(), from + BATCH_CHUNK)));
            int created = publishChunk(queue, chunk, generated, from);
            chunk.forEach(job -> ids.add(job.id()));
            observer.published(queue, created);
        }
        return ids;
    }

    /**
     * Stores jobs whose ids the caller already has. A generated id that clashed (72 random bits:
     * next to never) is drawn again rather than the job lost; the caller's id then names no job.
     * A failure propagates to the code that committed the transaction.
     */
    private void storeAfterCommit(String queue, List<NewJob> jobs, boolean[] generated) {
        List<String> stored = store(queue, jobs, generated);
        for (int i = 0; i < jobs.size(); i++) {
            if (!stored.get(i).equals(jobs.get(i).id())) {
                logger.error("Queue '" + queue + "': the generated id '" + jobs.get(i).id() + "' of a job published "
                        + "after commit met an existing job; the job was stored as '" + stored.get(i) + "' instead");
            }
        }
    }

    private static <T> List<T> pick(List<T> all, List<Integer> positions) {
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

    /**
     * Stores one chunk; returns how many jobs it created or replaced, or stored as the successor of a
     * held job (which becomes the job when the held one ends). A kept existing job answers to
     * the same id, so for a business key the outcome only matters to the count. A generated id that
     * met an existing job (72 random bits: next to never) is drawn again, in {@code chunk} too.
     */
    private int publishChunk(String queue, List<NewJob> chunk, boolean[] generated, int offset) {
        List<NewJob> attempt = chunk;
        List<Integer> positions = null;
        int created = 0;
        while (true) {
            List<PublishOutcome> outcomes = publishRouted(queue, attempt);
            List<NewJob> clashed = new ArrayList<>();
            List<Integer> clashedAt = new ArrayList<>();
            for (int i = 0; i < outcomes.size(); i++) {
                int at = positions == null ? i : positions.get(i);
                if (outcomes.get(i) == PublishOutcome.QUEUED_AS_SUCCESSOR && logger.isDebugEnabled()) {
                    logger.debug("Queue '" + queue + "': job '" + attempt.get(i).id() + "' is held by a consumer; the "
                            + "publish waits as its successor");
                }
                if (outcomes.get(i) != PublishOutcome.KEPT_EXISTING) {
                    created++;
                }
                else if (generated[offset + at]) {
                    NewJob job = attempt.get(i);
                    NewJob fresh = new NewJob(newId(), job.relative(), job.time(), false, job.payload(), true);
                    chunk.set(at, fresh);
                    clashed.add(fresh);
                    clashedAt.add(at);
                }
            }
            if (clashed.isEmpty()) {
                return created;
            }
            attempt = clashed;
            positions = clashedAt;
        }
    }

    /**
     * Stores jobs in the partitions their ids map to, one call per partition, and returns their
     * outcomes in order. A publish that meets a layout changed by another application stored nothing
     * in that partition: the jobs not stored yet are routed again by the new layout.
     */
    private List<PublishOutcome> publishRouted(String queue, List<NewJob> jobs) {
        QueueLayout layout = queues.layout(queue);
        PublishOutcome[] outcomes = new PublishOutcome[jobs.size()];
        for (int changes = 0; ; changes++) {
            try {
                for (Map.Entry<Integer, List<Integer>> partition : unstoredByPartition(layout, jobs, outcomes).entrySet()) {
                    List<Integer> positions = partition.getValue();
                    List<PublishOutcome> stored = coalescer.publish(layout.partitions().get(partition.getKey()),
                            layout.size(), pick(jobs, positions));
                    for (int i = 0; i < stored.size(); i++) {
                        outcomes[positions.get(i)] = stored.get(i);
                    }
                }
                return List.of(outcomes);
            }
            catch (LayoutChangedException ex) {
                if (changes >= 3) {
                    throw new DelayQueueException("Queue '" + queue + "': its partition layout kept changing while "
                            + "publishing; the jobs not yet stored were not published", ex);
                }
                layout = queues.layoutChanged(queue, ex.partitions());
            }
        }
    }

    /** The positions of the jobs not stored yet, by the index of the partition their ids map to. */
    private static Map<Integer, List<Integer>> unstoredByPartition(QueueLayout layout, List<NewJob> jobs,
            PublishOutcome[] outcomes) {
        Map<Integer, List<Integer>> byPartition = new TreeMap<>();
        for (int i = 0; i < jobs.size(); i++) {
            if (outcomes[i] == null) {
                byPartition.computeIfAbsent(layout.indexOf(jobs.get(i).id()), p -> new ArrayList<>()).add(i);
            }
        }
        return byPartition;
    }

    @Override
    public boolean cancel(String queue, String id) {
        return queues.cancel(JobArguments.queue(queue), JobArguments.id(id));
    }

    @Override
    public boolean reschedule(String queue, String id, Instant dueAt) {
        return queues.reschedule(JobArguments.queue(queue), JobArguments.id(id), false, dueAtArgument(dueAt).toEpochMilli());
    }

    @Override
    public boolean reschedule(String queue, String id, Duration delay) {
        return queues.reschedule(JobArguments.queue(queue), JobArguments.id(id), true, JobArguments.delay(delay).toMillis());
    }

    @Override
    public Optional<JobInfo> find(String queue, String id) {
        return queues.find(JobArguments.queue(queue), JobArguments.id(id));
    }

    private NewJob toJob(PublishRequest request) {
        String id = request.key() != null ? JobArguments.id(request.key()) : newId();
        // without a key there is nothing to replace: a generated id that clashes is drawn again instead
        boolean keyed = request.key() != null;
        boolean replace = keyed && request.isReplaceExisting();
        String json = codec.write(request.payload());
        if (request.dueAt() != null) {
            return new NewJob(id, false, JobArguments.dueAt(request.dueAt()).toEpochMilli(), replace, json, !keyed);
        }
        return new NewJob(id, true, JobArguments.delay(request.delay()).toMillis(), replace, json, !keyed);
    }

    private static PublishRequest requestArgument(PublishRequest request) {
        if (request == null) {
            throw new IllegalArgumentException("publish request must not be null");
        }
        return request;
    }

    private static Instant dueAtArgument(Instant dueAt) {
        return JobArguments.dueAt(dueAt);
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
