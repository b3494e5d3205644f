package dev.delayjobs.observation;

import io.micrometer.observation.Observation;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.propagation.Propagator;

/**
 * The publish span: Micrometer Tracing's sender handler, which also stores the span's own context
 * with the jobs, for {@link DelayProcessTracingObservationHandler} to link each job's process span
 * to it. The span is {@code PRODUCER}: its context is every job's creation context (no per-job
 * "create" spans), which the conventions allow for a batch.
 */
public class DelaySendTracingObservationHandler extends PropagatingSenderTracingObservationHandler<DelayPublishContext> {

    /**
     * The {@code @Order} of both handlers: before Spring Boot's sender and receiver tracing handlers
     * (1000 and 2000), which would otherwise take the delay contexts first.
     */
    public static final int ORDER = 900;

    /** With the application's tracer and the propagator its other tracing handlers use. */
    public DelaySendTracingObservationHandler(Tracer tracer, Propagator propagator) {
        super(tracer, propagator);
    }

    @Override
    public void onStart(DelayPublishContext context) {
        super.onStart(context);
        CreationContextHeader.write(getRequiredSpan(context).context(), context.getCarrier());
    }

    @Override
    public boolean supportsContext(Observation.Context context) {
        return context instanceof DelayPublishContext;
    }
}
