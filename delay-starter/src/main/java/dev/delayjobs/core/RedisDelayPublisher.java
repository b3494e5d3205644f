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
        for (int i = 0; i < requests.size(); i++) {
            try {
                jobs.add(toJob(requestArgument(requests.get(i))));
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
            List<NewJob> chunk = jobs.subList(from, Math.min(jobs.size(), from + BATCH_CHUNK));
            // a kept existing job answers to the same id: the outcome only matters to the count
            List<PublishOutcome> outcomes = store.publish(queue, chunk);
            int created = 0;
            for (int i = 0; i < chunk.size(); i++) {
                NewJob job = chunk.get(i);
                ids.add(job.id());
                if (outcomes.get(i) != PublishOutcome.KEPT_EXISTING) {
                    created++;
                }
                else if (job.replaceExisting()) {
                    logger.warn("Queue '" + queue + "': job '" + job.id() + "' is running and was not replaced");
                }
            }
            observer.published(queue, created);
        }
        return ids;
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
        String json = codec.write(request.payload());
        if (request.dueAt() != null) {
            return new NewJob(id, false, request.dueAt().toEpochMilli(), request.isReplaceExisting(), json);
        }
        return new NewJob(id, true, JobArguments.delay(request.delay()).toMillis(), request.isReplaceExisting(), json);
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

    /** 128 random bits, URL-safe Base64: 22 characters, half the bytes of a UUID string. */
    private static String newId() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        byte[] bytes = new byte[16];
        random.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
