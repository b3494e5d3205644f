package dev.delayjobs.fault;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.JobInfo;
import dev.delayjobs.JobState;
import dev.delayjobs.embeddedredis.RedisServerProcess;

/**
 * The jobs one consumer instance holds, read from Redis as an operator would (its active list, then
 * each job's state): after a {@code kill -9}, what recovery will hand back once its lease runs out.
 * A job started from the buffer whose start mark had not landed reads PREFETCHED: it comes back with
 * no attempt spent, while a RUNNING one comes back with its attempt counted.
 */
final class HeldJobs {

    private final Map<String, JobState> states;

    private HeldJobs(Map<String, JobState> states) {
        this.states = states;
    }

    /**
     * What {@code instance} holds in {@code queue}, each job under the name {@code name} gives it
     * (the handled log's name for it).
     */
    static HeldJobs read(RedisServerProcess redis, String prefix, String queue, String instance, DelayPublisher publisher,
            Function<JobInfo, String> name) {
        @SuppressWarnings("unchecked")
        List<String> ids = (List<String>) RedisCli.call(redis.port(), "LRANGE", prefix + ":{" + queue + "}:active:" + instance,
                "0", "-1");
        Map<String, JobState> states = new LinkedHashMap<>();
        for (String id : ids) {
            publisher.find(queue, id).ifPresent(job -> states.put(name.apply(job), job.state()));
        }
        return new HeldJobs(states);
    }

    Set<String> all() {
        return states.keySet();
    }

    /** The jobs a worker had started, as far as Redis knows: recovery counts their attempt. */
    Set<String> running() {
        return in(JobState.RUNNING);
    }

    /** The jobs that waited in the buffer, or were just taken from it with the start mark on its way. */
    Set<String> prefetched() {
        return in(JobState.PREFETCHED);
    }

    private Set<String> in(JobState state) {
        return states.entrySet().stream().filter(e -> e.getValue() == state).map(Map.Entry::getKey)
                .collect(Collectors.toSet());
    }

    @Override
    public String toString() {
        return states.toString();
    }
}
