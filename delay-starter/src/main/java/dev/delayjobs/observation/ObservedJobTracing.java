package dev.delayjobs.observation;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

import dev.delayjobs.core.JobTracing;

/**
 * Publishing and handling as Micrometer observations. A tracing handler's propagator writes the
 * publisher's trace context into the publish context's carrier, which is stored with the jobs; the
 * handler's observation reads it back, so every attempt is a new span of the publisher's trace.
 * With Micrometer Tracing, {@link DelaySendTracingObservationHandler} and
 * {@link DelayProcessTracingObservationHandler} add the span link from each attempt to the publish.
 */
public final class ObservedJobTracing implements JobTracing {

    private final ObservationRegistry registry;
    private final DelayPublishObservationConvention publishConvention;
    private final DelayHandlerObservationConvention handlerConvention;
    private final DelayPublishObservationConvention defaultPublishConvention;
    private final DelayHandlerObservationConvention defaultHandlerConvention;

    /** Null conventions mean the defaults, which emit the current key names only. */
    public ObservedJobTracing(ObservationRegistry registry, DelayPublishObservationConvention publishConvention,
            DelayHandlerObservationConvention handlerConvention) {
        this(registry, publishConvention, handlerConvention, false);
    }

    /** Null conventions mean the defaults; with {@code legacyNames} they also emit the previous release's keys. */
    public ObservedJobTracing(ObservationRegistry registry, DelayPublishObservationConvention publishConvention,
            DelayHandlerObservationConvention handlerConvention, boolean legacyNames) {
        this.registry = registry;
        this.publishConvention = publishConvention;
        this.handlerConvention = handlerConvention;
        this.defaultPublishConvention = legacyNames ? new DefaultDelayPublishObservationConvention(true)
                : DefaultDelayPublishObservationConvention.INSTANCE;
        this.defaultHandlerConvention = legacyNames ? new DefaultDelayHandlerObservationConvention(true)
                : DefaultDelayHandlerObservationConvention.INSTANCE;
    }

    @Override
    public <T> T publish(String queue, int jobs, Function<Map<String, String>, T> publish) {
        DelayPublishContext context = new DelayPublishContext(queue, jobs);
        return Observation.createNotStarted(publishConvention, defaultPublishConvention, () -> context, registry)
                .observe(() -> {
                    T result = publish.apply(context.getCarrier());
                    // the publisher returns the ids in order; one job's id is the send span's message id
                    if (jobs == 1 && result instanceof List<?> ids && ids.size() == 1 && ids.get(0) instanceof String id) {
                        context.setJobId(id);
                    }
                    return result;
                });
    }

    @Override
    public <T> CompletableFuture<T> publishAsync(String queue, int jobs, Function<Map<String, String>, CompletableFuture<T>> publish) {
        DelayPublishContext context = new DelayPublishContext(queue, jobs);
        Observation observation = Observation.createNotStarted(publishConvention, defaultPublishConvention, () -> context, registry)
                .start();
        CompletableFuture<T> result;
        try (Observation.Scope scope = observation.openScope()) {
            result = publish.apply(context.getCarrier());
        }
        catch (RuntimeException ex) {
            observation.error(ex);
            observation.stop();
            throw ex;
        }
        return result.whenComplete((done, failure) -> {
            // as publish: one job's id is the send span's message id
            if (jobs == 1 && done instanceof List<?> ids && ids.size() == 1 && ids.get(0) instanceof String id) {
                context.setJobId(id);
            }
            if (failure != null) {
                observation.error(failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure);
            }
            observation.stop();
        });
    }

    @Override
    public void handle(String queue, String id, int attempt, Map<String, String> headers, HandlerCall call) throws Throwable {
        DelayHandlerContext context = new DelayHandlerContext(queue, id, attempt, headers);
        Observation observation = Observation.createNotStarted(handlerConvention, defaultHandlerConvention, () -> context,
                registry).start();
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
