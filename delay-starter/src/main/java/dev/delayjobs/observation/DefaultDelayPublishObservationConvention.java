package dev.delayjobs.observation;

import io.micrometer.common.KeyValues;

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
        return KeyValues.of("messaging.system", "redis", "messaging.operation", "publish",
                "messaging.destination.name", context.getQueue());
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(DelayPublishContext context) {
        return KeyValues.of("messaging.batch.message_count", Integer.toString(context.getJobCount()));
    }
}
