package dev.delayjobs.observation;

import io.micrometer.common.KeyValues;

/**
 * {@code delay.handler}, named {@code "<queue> process"}, with the messaging semantic conventions'
 * low-cardinality keys (system, operation, destination = the queue), and the job id and attempt.
 */
public class DefaultDelayHandlerObservationConvention implements DelayHandlerObservationConvention {

    /** The instance the starter uses when no convention bean is defined. */
    public static final DefaultDelayHandlerObservationConvention INSTANCE = new DefaultDelayHandlerObservationConvention();

    @Override
    public String getName() {
        return "delay.handler";
    }

    @Override
    public String getContextualName(DelayHandlerContext context) {
        return context.getQueue() + " process";
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(DelayHandlerContext context) {
        return KeyValues.of("messaging.system", "redis", "messaging.operation", "process",
                "messaging.destination.name", context.getQueue());
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(DelayHandlerContext context) {
        return KeyValues.of("messaging.message.id", context.getJobId(), "delay.job.attempt",
                Integer.toString(context.getAttempt()));
    }
}
