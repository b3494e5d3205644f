package dev.delayjobs.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags of handler observations; define a bean of this type to replace
 * {@link DefaultDelayHandlerObservationConvention}.
 */
public interface DelayHandlerObservationConvention extends ObservationConvention<DelayHandlerContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof DelayHandlerContext;
    }
}
