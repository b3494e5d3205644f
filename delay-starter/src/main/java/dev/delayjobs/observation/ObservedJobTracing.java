package dev.delayjobs.observation;

import java.util.Map;
import java.util.function.Function;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

import dev.delayjobs.core.JobTracing;

/**
 * Publishing and handling as Micrometer observations. A tracing handler's propagator writes the
 * publisher's trace context into the publish context's carrier, which is stored with the jobs; the
 * handler's observation reads it back, so every attempt is a new span of the publisher's trace.
 */
public final class ObservedJobTracing implements JobTracing {

    private final ObservationRegistry registry;
    private final DelayPublishObservationConvention publishConvention;
    private final DelayHandlerObservationConvention handlerConvention;

    /** Null conventions mean the defaults. */
    public ObservedJobTracing(ObservationRegistry registry, DelayPublishObservationConvention publishConvention,
            DelayHandlerObservationConvention handlerConvention) {
        this.registry = registry;
        this.publishConvention = publishConvention;
        this.handlerConvention = handlerConvention;
    }

    @Override
    public <T> T publish(String queue, int jobs, Function<Map<String, String>, T> publish) {
        DelayPublishContext context = new DelayPublishContext(queue, jobs);
        return Observation.createNotStarted(publishConvention, DefaultDelayPublishObservationConvention.INSTANCE,
                () -> context, registry).observe(() -> publish.apply(context.getCarrier()));
    }

    @Override
    public void handle(String queue, String id, int attempt, Map<String, String> headers, HandlerCall call) throws Throwable {
        DelayHandlerContext context = new DelayHandlerContext(queue, id, attempt, headers);
        Observation observation = Observation.createNotStarted(handlerConvention,
                DefaultDelayHandlerObservationConvention.INSTANCE, () -> context, registry).start();
        try (Observation.Scope scope = observation.openScope()) {
            call.run();
        }
        catch (Throwable ex) {
            observation.error(ex);
            throw ex;
        }
        finally {
            observation.stop();
        }
    }
}
