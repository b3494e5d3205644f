package dev.delayjobs.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.JobInfo;
import dev.delayjobs.PublishRequest;
import dev.delayjobs.partition.PartitionedQueues;
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
        QueueName name = QueueName.of(queue);
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
        store.registerQueue(name.value());
        return events.publish(queue, jobs.size(), headers -> storeNowOrAfterCommit(name,
                headers.isEmpty() ? jobs : jobs.stream().map(job -> job.carrying(headers)).toList(), generated, later, now));
    }

    /** Stores the jobs at {@code now} positions at once and those at {@code later} after the commit; returns every id in order. */
    private List<String> storeNowOrAfterCommit(QueueName queue, List<NewJob> jobs, boolean[] generated, List<Integer> later,
            List<Integer> now) {
        int count = jobs.size();
        if (!later.isEmpty()) {
            List<NewJob> waiting = pick(jobs, later);
            boolean[] waitingGenerated = pick(generated, later);
            if (deferral.deferToCommit(() -> storeAfterCommit(queue, waiting, waitingGenerated))) {
                List<String> stored = routed.store(queue, pick(jobs, now), pick(generated, now));
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
        return routed.store(queue, jobs, generated);
    }

    /**
     * Stores jobs whose ids the caller already has. A generated id that clashed (72 random bits:
     * next to never) is drawn again rather than the job lost; the caller's id then names no job.
     * A failure propagates to the code that committed the transaction.
     */
    private void storeAfterCommit(QueueName queue, List<NewJob> jobs, boolean[] generated) {
        List<String> stored = routed.store(queue, jobs, generated);
        for (int i = 0; i < jobs.size(); i++) {
            if (!stored.get(i).equals(jobs.get(i).id())) {
                logger.error("Queue '" + queue + "': the generated id '" + jobs.get(i).id() + "' of a job published "
                        + "after commit met an existing job; the job was stored as '" + stored.get(i) + "' instead");
            }
        }
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
        return queues.reschedule(QueueName.of(queue), JobArguments.id(id), false, dueAtArgument(dueAt).toEpochMilli());
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
