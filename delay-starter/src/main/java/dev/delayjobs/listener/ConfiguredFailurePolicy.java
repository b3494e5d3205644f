package dev.delayjobs.listener;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

import org.springframework.util.backoff.BackOff;

import dev.delayjobs.JobFailurePolicy;

/**
 * The failure policy configured by properties: a failure is not retried when it, or one of its
 * causes, is an instance of one of the queue's not-retryable exception classes; the delays are the
 * queue's {@link QueueSettings.ExponentialBackoff}.
 */
public final class ConfiguredFailurePolicy implements JobFailurePolicy {

    private final Function<String, ? extends BackOff> backoffs;
    private final Function<String, List<Class<? extends Throwable>>> notRetryable;

    /**
     * @param backoffs the backoff of each queue
     * @param notRetryable the exception classes that send a job of each queue to the dead set at once
     */
    public ConfiguredFailurePolicy(Function<String, ? extends BackOff> backoffs,
            Function<String, List<Class<? extends Throwable>>> notRetryable) {
        this.backoffs = backoffs;
        this.notRetryable = notRetryable;
    }

    @Override
    public boolean isRetryable(String queue, Throwable failure) {
        List<Class<? extends Throwable>> classes = notRetryable.apply(queue);
        if (classes.isEmpty()) {
            return true;
        }
        // a cause chain may loop back on itself
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable t = failure; t != null && seen.add(t); t = t.getCause()) {
            for (Class<? extends Throwable> type : classes) {
                if (type.isInstance(t)) {
                    return false;
                }
            }
        }
        return true;
    }

    @Override
    public BackOff backOff(String queue) {
        return backoffs.apply(queue);
    }
}
