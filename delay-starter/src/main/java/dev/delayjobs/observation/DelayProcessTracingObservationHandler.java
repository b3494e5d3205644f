package dev.delayjobs.observation;

import io.micrometer.observation.Observation;
import io.micrometer.tracing.Link;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.propagation.Propagator;

/**
 * A handler call's span: Micrometer Tracing's receiver handler (the span is a child of the publish
 * span, read from the propagator's headers), which also links the span to the publish span, as the
 * messaging conventions ask of every process span. The Observation API has no links, so this is
 * done on the span builder, from the context {@link DelaySendTracingObservationHandler} stored.
 */
public class DelayProcessTracingObservationHandler extends PropagatingReceiverTracingObservationHandler<DelayHandlerContext> {

    /** With the application's tracer and the propagator its other tracing handlers use. */
    public DelayProcessTracingObservationHandler(Tracer tracer, Propagator propagator) {
        super(tracer, propagator);
    }

    @Override
    public Span.Builder customizeExtractedSpan(DelayHandlerContext context, Span.Builder builder) {
        TraceContext creation = CreationContextHeader.read(getTracer(), context.getCarrier());
        return creation == null ? builder : builder.addLink(new Link(creation));
    }

    @Override
    public boolean supportsContext(Observation.Context context) {
        return context instanceof DelayHandlerContext;
    }
}
