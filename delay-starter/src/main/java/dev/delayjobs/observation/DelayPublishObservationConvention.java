package dev.delayjobs.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags of publish observations; define a bean of this type to replace
 * {@link DefaultDelayPublishObservationConvention}.
 */
public interface DelayPublishObservationConvention extends ObservationConvention<DelayPublishContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof DelayPublishContext;
    }
}
