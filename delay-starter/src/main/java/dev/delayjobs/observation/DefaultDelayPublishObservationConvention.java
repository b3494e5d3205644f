package dev.delayjobs.observation;

import io.micrometer.common.KeyValues;

import dev.delayjobs.observation.DelayObservationKeys.HighCardinality;
import dev.delayjobs.observation.DelayObservationKeys.LowCardinality;

/**
 * {@code delay.publish}, named {@code "publish <queue>"}, with OpenTelemetry's messaging keys for a
 * send operation (v1.44.0): system, operation type {@code send} and name {@code publish},
 * destination = the queue; the job id when the call published one job, the batch size otherwise.
 */
public class DefaultDelayPublishObservationConvention implements DelayPublishObservationConvention {

    /** The instance the starter uses when no convention bean is defined. */
    public static final DefaultDelayPublishObservationConvention INSTANCE = new DefaultDelayPublishObservationConvention();

    private final boolean legacyNames;

    /** The current key names only. */
    public DefaultDelayPublishObservationConvention() {
        this(false);
    }

    /** With {@code legacyNames}, also the keys of the previous release ({@code messaging.operation=publish}). */
    public DefaultDelayPublishObservationConvention(boolean legacyNames) {
        this.legacyNames = legacyNames;
    }

    @Override
    public String getName() {
        return "delay.publish";
    }

    @Override
    public String getContextualName(DelayPublishContext context) {
        return "publish " + context.getQueue();
    }

    @Override
    @SuppressWarnings("deprecation")
    public KeyValues getLowCardinalityKeyValues(DelayPublishContext context) {
        KeyValues current = KeyValues.of(LowCardinality.MESSAGING_SYSTEM.withValue(DefaultDelayHandlerObservationConvention.SYSTEM),
                LowCardinality.MESSAGING_OPERATION_TYPE.withValue("send"),
                LowCardinality.MESSAGING_OPERATION_NAME.withValue("publish"),
                LowCardinality.MESSAGING_DESTINATION_NAME.withValue(context.getQueue()));
        return legacyNames ? current.and(LowCardinality.MESSAGING_OPERATION.withValue("publish")) : current;
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(DelayPublishContext context) {
        // the conventions: a message id only for a single message, a batch count only for a batch
        if (context.getJobCount() > 1) {
            return KeyValues.of(HighCardinality.MESSAGING_BATCH_MESSAGE_COUNT.withValue(Integer.toString(context.getJobCount())));
        }
        return context.getJobId() == null ? KeyValues.empty()
                : KeyValues.of(HighCardinality.MESSAGING_MESSAGE_ID.withValue(context.getJobId()));
    }
}
