package dev.delayjobs.observation;

import io.micrometer.common.KeyValues;

import dev.delayjobs.observation.DelayObservationKeys.HighCardinality;
import dev.delayjobs.observation.DelayObservationKeys.LowCardinality;

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
        return KeyValues.of(LowCardinality.MESSAGING_SYSTEM.withValue("redis"),
                LowCardinality.MESSAGING_OPERATION.withValue("process"),
                LowCardinality.MESSAGING_DESTINATION_NAME.withValue(context.getQueue()));
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(DelayHandlerContext context) {
        return KeyValues.of(HighCardinality.MESSAGING_MESSAGE_ID.withValue(context.getJobId()),
                HighCardinality.JOB_ATTEMPT.withValue(Integer.toString(context.getAttempt())));
    }
}
