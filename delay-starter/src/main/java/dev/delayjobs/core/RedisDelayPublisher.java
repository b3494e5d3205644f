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
import dev.delayjobs.redis.NewJob;
import dev.delayjobs.redis.PublishOutcome;
import dev.delayjobs.redis.RedisJobStore;

/** The {@link DelayPublisher} of the starter: checks every argument, then stores the jobs in one script call. */
public final class RedisDelayPublisher implements DelayPublisher {

    private static final Log logger = LogFactory.getLog(RedisDelayPublisher.class);

    /** Jobs per script call in {@link #publishAll}: bounds how long one call holds Redis. */
    static final int BATCH_CHUNK = 500;

    private final RedisJobStore store;
    private final PayloadCodec codec;
    private final DelayQueueObserver observer;

    public RedisDelayPublisher(RedisJobStore store, PayloadCodec codec, DelayQueueObserver observer) {
        this.store = store;
        this.codec = codec;
        this.observer = observer;
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
        List<NewJob> jobs = new ArrayList<>(requests.size());
        boolean[] generated = new boolean[requests.size()];
        for (int i = 0; i < requests.size(); i++) {
            try {
                PublishRequest request = requestArgument(requests.get(i));
                generated[i] = request.key() == null;
                jobs.add(toJob(request));
            }
            catch (IllegalArgumentException ex) {
                throw new IllegalArgumentException("request " + i + ": " + ex.getMessage(), ex);
            }
        }
        if (jobs.isEmpty()) {
            return List.of();
        }
        store.registerQueue(queue);
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
     * Stores one chunk; returns how many jobs it created or replaced. A kept existing job answers to
     * the same id, so for a business key the outcome only matters to the count. A generated id that
     * met an existing job (72 random bits: next to never) is drawn again, in {@code chunk} too.
     */
    private int publishChunk(String queue, List<NewJob> chunk, boolean[] generated, int offset) {
        List<NewJob> attempt = chunk;
        List<Integer> positions = null;
        int created = 0;
        while (true) {
            List<PublishOutcome> outcomes = store.publish(queue, attempt);
            List<NewJob> clashed = new ArrayList<>();
            List<Integer> clashedAt = new ArrayList<>();
            for (int i = 0; i < outcomes.size(); i++) {
                int at = positions == null ? i : positions.get(i);
                if (outcomes.get(i) != PublishOutcome.KEPT_EXISTING) {
                    created++;
                }
                else if (attempt.get(i).replaceExisting()) {
                    logger.warn("Queue '" + queue + "': job '" + attempt.get(i).id() + "' is running and was not replaced");
                }
                else if (generated[offset + at]) {
                    NewJob job = attempt.get(i);
                    NewJob fresh = new NewJob(newId(), job.relative(), job.time(), job.replaceExisting(), job.payload());
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

    @Override
    public boolean cancel(String queue, String id) {
        return store.cancel(JobArguments.queue(queue), JobArguments.id(id));
    }

    @Override
    public boolean reschedule(String queue, String id, Instant dueAt) {
        return store.reschedule(JobArguments.queue(queue), JobArguments.id(id), false, dueAtArgument(dueAt).toEpochMilli());
    }

    @Override
    public boolean reschedule(String queue, String id, Duration delay) {
        return store.reschedule(JobArguments.queue(queue), JobArguments.id(id), true, JobArguments.delay(delay).toMillis());
    }

    @Override
    public Optional<JobInfo> find(String queue, String id) {
        return store.find(JobArguments.queue(queue), JobArguments.id(id));
    }

    private NewJob toJob(PublishRequest request) {
        String id = request.key() != null ? JobArguments.id(request.key()) : newId();
        // without a key there is nothing to replace: a generated id that clashes is drawn again instead
        boolean replace = request.key() != null && request.isReplaceExisting();
        String json = codec.write(request.payload());
        if (request.dueAt() != null) {
            return new NewJob(id, false, request.dueAt().toEpochMilli(), replace, json);
        }
        return new NewJob(id, true, JobArguments.delay(request.delay()).toMillis(), replace, json);
    }

    private static PublishRequest requestArgument(PublishRequest request) {
        if (request == null) {
            throw new IllegalArgumentException("publish request must not be null");
        }
        return request;
    }

    private static Instant dueAtArgument(Instant dueAt) {
        if (dueAt == null) {
            throw new IllegalArgumentException("dueAt must not be null");
        }
        return dueAt;
    }

    /**
     * 72 random bits, URL-safe Base64: 12 characters. Redis then keeps each copy of the id (the jobs
     * hash field and the delayed member) in a 16-byte allocation instead of 32. A clash with a job
     * that exists is detected at publish and drawn again.
     */
    static String newId() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        byte[] bytes = new byte[9];
        random.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
