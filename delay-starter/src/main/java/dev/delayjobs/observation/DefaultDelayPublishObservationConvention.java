package dev.delayjobs.observation;

import io.micrometer.common.KeyValues;

import dev.delayjobs.observation.DelayObservationKeys.HighCardinality;
import dev.delayjobs.observation.DelayObservationKeys.LowCardinality;

/**
 * {@code delay.publish}, named {@code "<queue> publish"}, with the messaging semantic conventions'
 * low-cardinality keys (system, operation, destination = the queue) and the batch size.
 */
public class DefaultDelayPublishObservationConvention implements DelayPublishObservationConvention {

    /** The instance the starter uses when no convention bean is defined. */
    public static final DefaultDelayPublishObservationConvention INSTANCE = new DefaultDelayPublishObservationConvention();

    @Override
    public String getName() {
        return "delay.publish";
    }

    @Override
    public String getContextualName(DelayPublishContext context) {
        return context.getQueue() + " publish";
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(DelayPublishContext context) {
        return KeyValues.of(LowCardinality.MESSAGING_SYSTEM.withValue("redis"),
                LowCardinality.MESSAGING_OPERATION.withValue("publish"),
                LowCardinality.MESSAGING_DESTINATION_NAME.withValue(context.getQueue()));
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(DelayPublishContext context) {
        return KeyValues.of(HighCardinality.MESSAGING_BATCH_MESSAGE_COUNT.withValue(Integer.toString(context.getJobCount())));
    }
}
