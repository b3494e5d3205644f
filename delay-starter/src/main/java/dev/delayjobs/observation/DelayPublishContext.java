package dev.delayjobs.observation;

import java.util.LinkedHashMap;
import java.util.Map;

import io.micrometer.observation.transport.SenderContext;

/**
 * The observation context of one publish call. Its carrier is the header map stored with every
 * job of the call, so a tracing handler's propagator writes the trace context into the jobs.
 */
public final class DelayPublishContext extends SenderContext<Map<String, String>> {

    private final String queue;
    private final int jobCount;
    private String jobId;

    DelayPublishContext(String queue, int jobCount) {
        super((carrier, key, value) -> carrier.put(key, value));
        this.queue = queue;
        this.jobCount = jobCount;
        setCarrier(new LinkedHashMap<>());
        setRemoteServiceName("redis");
    }

    /** The queue published to. */
    public String getQueue() {
        return queue;
    }

    /** Jobs in this call: 1 for {@code publish}, the batch size for {@code publishAll}. */
    public int getJobCount() {
        return jobCount;
    }

    /** The job's id once a publish of one job has stored it; null before, and for a batch. */
    public String getJobId() {
        return jobId;
    }

    void setJobId(String jobId) {
        this.jobId = jobId;
    }
}
