package dev.delayjobs.observation;

import java.util.Map;

import io.micrometer.observation.transport.ReceiverContext;

/**
 * The observation context of one handler call. Its carrier is the header map stored with the job
 * at publish, so a tracing handler continues the publisher's trace, however long the delay.
 */
public final class DelayHandlerContext extends ReceiverContext<Map<String, String>> {

    private final String queue;
    private final String jobId;
    private final int attempt;

    DelayHandlerContext(String queue, String jobId, int attempt, Map<String, String> headers) {
        super((carrier, key) -> carrier.get(key));
        this.queue = queue;
        this.jobId = jobId;
        this.attempt = attempt;
        setCarrier(headers);
        setRemoteServiceName("redis");
    }

    /** The queue the job came from. */
    public String getQueue() {
        return queue;
    }

    public String getJobId() {
        return jobId;
    }

    /** The delivery this call is, from 1. */
    public int getAttempt() {
        return attempt;
    }
}
