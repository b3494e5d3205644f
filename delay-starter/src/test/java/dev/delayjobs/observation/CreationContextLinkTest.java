package dev.delayjobs.observation;

import java.util.List;
import java.util.Map;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.exporter.FinishedSpan;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.test.simple.SimpleTracer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * In the JVM, without Redis: the send handler stores the publish span's context in the headers
 * given to the publish, and the process handler links to it from those headers.
 */
class CreationContextLinkTest {

    private final SimpleTracer tracer = new SimpleTracer();
    private final ObservationRegistry registry = ObservationRegistry.create();

    CreationContextLinkTest() {
        TracingAcrossTheDelayTest.HeaderPropagator propagator = new TracingAcrossTheDelayTest.HeaderPropagator(tracer);
        registry.observationConfig().observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
                new DelaySendTracingObservationHandler(tracer, propagator), new DelayProcessTracingObservationHandler(tracer, propagator),
                new DefaultTracingObservationHandler(tracer)));
    }

    @Test
    void theProcessSpanLinksToThePublishSpanStoredInTheHeaders() throws Throwable {
        ObservedJobTracing tracing = new ObservedJobTracing(registry, null, null);
        // inside an application span: the test tracer gives a span started without a parent no ids
        Map<String, String> headers = Observation.createNotStarted("request", registry)
                .observe(() -> tracing.publish("orders", 2, Map::copyOf));
        assertThat(headers).containsKey(CreationContextHeader.NAME);

        tracing.handle("orders", "job-1", 1, headers, () -> { });

        FinishedSpan send = span("publish orders");
        FinishedSpan process = span("process orders");
        assertThat(send.getSpanId()).isNotEmpty();
        assertThat(process.getLinks()).singleElement().satisfies(link -> {
            assertThat(link.getTraceContext().traceId()).isEqualTo(send.getTraceId());
            assertThat(link.getTraceContext().spanId()).isEqualTo(send.getSpanId());
        });
    }

    @Test
    void aJobWithoutTheHeaderIsProcessedWithoutALink() throws Throwable {
        ObservedJobTracing tracing = new ObservedJobTracing(registry, null, null);
        tracing.handle("orders", "job-1", 1, Map.of(CreationContextHeader.NAME, "not a context"), () -> { });
        tracing.handle("orders", "job-2", 1, Map.of(), () -> { });
        assertThat(tracer.getSpans()).hasSize(2).allSatisfy(span -> assertThat(((FinishedSpan) span).getLinks()).isEmpty());
    }

    private FinishedSpan span(String name) {
        List<FinishedSpan> spans = tracer.getSpans().stream().map(span -> (FinishedSpan) span)
                .filter(span -> name.equals(span.getName())).toList();
        assertThat(spans).hasSize(1);
        return spans.get(0);
    }
}
