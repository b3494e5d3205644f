package dev.delayjobs.observation;

import io.micrometer.common.KeyValues;

import dev.delayjobs.observation.DelayObservationKeys.HighCardinality;
import dev.delayjobs.observation.DelayObservationKeys.LowCardinality;

/**
 * {@code delay.handler}, named {@code "process <queue>"}, with OpenTelemetry's messaging keys for a
 * process operation (v1.44.0): system, operation type and name {@code process}, destination = the
 * queue, message id = the job id; and the attempt.
 */
public class DefaultDelayHandlerObservationConvention implements DelayHandlerObservationConvention {

    /**
     * {@code messaging.system}: not one of the conventions' well-known values, which then allow a
     * custom one; the broker the jobs live in, as the conventions name the broker a client talks to.
     */
    static final String SYSTEM = "redis";

    /** The instance the starter uses when no convention bean is defined. */
    public static final DefaultDelayHandlerObservationConvention INSTANCE = new DefaultDelayHandlerObservationConvention();

    private final boolean legacyNames;

    /** The current key names only. */
    public DefaultDelayHandlerObservationConvention() {
        this(false);
    }

    /** With {@code legacyNames}, also the keys of the previous release ({@code messaging.operation=process}). */
    public DefaultDelayHandlerObservationConvention(boolean legacyNames) {
        this.legacyNames = legacyNames;
    }

    @Override
    public String getName() {
        return "delay.handler";
    }

    @Override
    public String getContextualName(DelayHandlerContext context) {
        return "process " + context.getQueue();
    }

    @Override
    @SuppressWarnings("deprecation")
    public KeyValues getLowCardinalityKeyValues(DelayHandlerContext context) {
        KeyValues current = KeyValues.of(LowCardinality.MESSAGING_SYSTEM.withValue(SYSTEM),
                LowCardinality.MESSAGING_OPERATION_TYPE.withValue("process"),
                LowCardinality.MESSAGING_OPERATION_NAME.withValue("process"),
                LowCardinality.MESSAGING_DESTINATION_NAME.withValue(context.getQueue()));
        return legacyNames ? current.and(LowCardinality.MESSAGING_OPERATION.withValue("process")) : current;
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(DelayHandlerContext context) {
        return KeyValues.of(HighCardinality.MESSAGING_MESSAGE_ID.withValue(context.getJobId()),
                HighCardinality.JOB_ATTEMPT.withValue(Integer.toString(context.getAttempt())));
    }
}
