package dev.delayjobs.observation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Link;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.exporter.FinishedSpan;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.propagation.Propagator;
import io.micrometer.tracing.test.simple.SimpleTracer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.annotation.Bean;

import dev.delayjobs.DelayedHandler;
import dev.delayjobs.PublishRequest;
import dev.delayjobs.test.RunningApp;

/**
 * With {@code delay.observation.enabled=true}, the trace context travels with the job through
 * Redis: the handler's span belongs to the publisher's trace after a real delay, and a retry is a
 * new span of the same trace; every process span links to the publish span, one send span for a
 * whole {@code publishAll}. Micrometer Tracing's test tracer, with a propagator that writes the
 * trace and span ids as two headers (a W3C or B3 propagator would write theirs the same way), and
 * the handlers wired as Spring Boot wires them: the starter's delay handlers first in the
 * first-matching group.
 */
class TracingAcrossTheDelayTest {

    static final SimpleTracer TRACER = new SimpleTracer();

    static class Handlers {

        final AtomicInteger calls = new AtomicInteger();

        @DelayedHandler(queue = "mails", maxAttempts = "3", backoffInitial = "100ms")
        void mail(String mail) {
            if (calls.incrementAndGet() == 1 && mail.equals("flaky")) {
                throw new IllegalStateException("mail gateway busy");
            }
        }

        final List<String> digests = new java.util.concurrent.CopyOnWriteArrayList<>();

        @DelayedHandler(queue = "digests")
        void digest(String digest) {
            digests.add(digest);
        }

        @Bean
        static ObservationRegistry observationRegistry() {
            Propagator propagator = new HeaderPropagator(TRACER);
            ObservationRegistry registry = ObservationRegistry.create();
            registry.observationConfig().observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
                    new DelaySendTracingObservationHandler(TRACER, propagator),
                    new DelayProcessTracingObservationHandler(TRACER, propagator),
                    new PropagatingSenderTracingObservationHandler<>(TRACER, propagator),
                    new PropagatingReceiverTracingObservationHandler<>(TRACER, propagator),
                    new DefaultTracingObservationHandler(TRACER)));
            return registry;
        }
    }

    @RegisterExtension
    static final RunningApp<Handlers> app = RunningApp.of(Handlers.class, "delay.observation.enabled=true",
            "delay.consumer.backoff.jitter=0");

    @Test
    void theHandlersSpansContinueThePublishersTraceAfterTheDelayAndAfterARetry() {
        String id = inARequest(() -> app.publisher().publish("mails", "flaky", Duration.ofMillis(300)));
        await().atMost(Duration.ofSeconds(10)).until(() -> processSpansOf("mails", id).size() == 2);

        FinishedSpan publish = spans("publish mails").stream().filter(span -> id.equals(span.getTags().get("messaging.message.id")))
                .findFirst().orElseThrow();
        assertThat(publish.getSpanId()).as("ids to compare").isNotEmpty();
        assertThat(publish.getKind()).isEqualTo(Span.Kind.PRODUCER);
        assertThat(publish.getTags()).containsEntry("messaging.system", "redis")
                .containsEntry("messaging.operation.type", "send")
                .containsEntry("messaging.operation.name", "publish")
                .containsEntry("messaging.destination.name", "mails")
                .doesNotContainKeys("messaging.operation", "messaging.batch.message_count");
        List<FinishedSpan> attempts = processSpansOf("mails", id);
        for (FinishedSpan attempt : attempts) {
            assertThat(attempt.getKind()).isEqualTo(Span.Kind.CONSUMER);
            assertThat(attempt.getTraceId()).as("same trace as the publish").isEqualTo(publish.getTraceId());
            assertThat(attempt.getParentId()).isEqualTo(publish.getSpanId());
            assertThat(attempt.getTags()).containsEntry("messaging.system", "redis")
                    .containsEntry("messaging.operation.type", "process")
                    .containsEntry("messaging.operation.name", "process")
                    .containsEntry("messaging.destination.name", "mails")
                    .doesNotContainKey("messaging.operation");
            assertThat(attempt.getLinks()).as("the process span links to the message's creation context")
                    .singleElement().satisfies(link -> assertLinksTo(link, publish));
        }
        assertThat(attempts).extracting(FinishedSpan::getSpanId).doesNotHaveDuplicates();
        assertThat(attempts).extracting(span -> span.getTags().get("delay.job.attempt")).containsExactlyInAnyOrder("1", "2");
        assertThat(attempts).filteredOn(span -> "1".equals(span.getTags().get("delay.job.attempt")))
                .singleElement().satisfies(span -> assertThat(span.getError()).hasMessage("mail gateway busy"));
    }

    @Test
    void everyJobOfAPublishAllIsProcessedInASpanLinkedToTheOneSendSpan() {
        int count = 5;
        List<String> ids = inARequest(() -> app.publisher().publishAll("digests", IntStream.range(0, count)
                .mapToObj(i -> PublishRequest.of("digest-" + i).delay(Duration.ofMillis(200))).toList()));
        await().atMost(Duration.ofSeconds(10)).until(() -> ids.stream().allMatch(id -> processSpansOf("digests", id).size() == 1));

        List<FinishedSpan> sends = spans("publish digests");
        assertThat(sends).as("one send span for the batch").hasSize(1);
        FinishedSpan send = sends.get(0);
        assertThat(send.getSpanId()).as("ids to compare").isNotEmpty();
        assertThat(send.getKind()).isEqualTo(Span.Kind.PRODUCER);
        assertThat(send.getTags()).containsEntry("messaging.operation.type", "send")
                .containsEntry("messaging.operation.name", "publish")
                .containsEntry("messaging.destination.name", "digests")
                .containsEntry("messaging.batch.message_count", Integer.toString(count))
                .doesNotContainKey("messaging.message.id");
        List<FinishedSpan> processed = spans("process digests");
        assertThat(processed).hasSize(count);
        assertThat(processed).extracting(span -> span.getTags().get("messaging.message.id")).containsExactlyInAnyOrderElementsOf(ids);
        for (FinishedSpan process : processed) {
            assertThat(process.getTags()).containsEntry("messaging.operation.type", "process");
            assertThat(process.getLinks()).singleElement().satisfies(link -> assertLinksTo(link, send));
            assertThat(process.getParentId()).isEqualTo(send.getSpanId());
        }
    }

    @Test
    void theTraceContextIsStoredBesideThePayloadNotInIt() {
        String id = app.publisher().publish("mails", "later", Duration.ofHours(1));
        assertThat(app.publisher().find("mails", id)).hasValueSatisfying(job -> assertThat(job.payloadJson()).isEqualTo("\"later\""));
        org.redisson.api.RedissonClient redis = dev.delayjobs.test.TestRedis.newClient();
        try {
            String prefix = app.context().getEnvironment().getProperty("delay.key-prefix");
            String record = redis.<String, String>getMap(prefix + ":{mails}:jobs",
                    org.redisson.client.codec.StringCodec.INSTANCE).get(id);
            assertThat(record).contains("|~").contains("test-trace-id=").contains("delay-creation-context=").endsWith("\"later\"");
        }
        finally {
            redis.shutdown();
        }
    }

    /**
     * Publishes inside an application span, as a web request would. The test tracer gives a span
     * started without a parent no ids, so a root publish span could not be told from another.
     */
    private static <T> T inARequest(java.util.function.Supplier<T> publish) {
        return io.micrometer.observation.Observation.createNotStarted("request", app.context().getBean(ObservationRegistry.class))
                .observe(publish);
    }

    private static void assertLinksTo(Link link, FinishedSpan span) {
        assertThat(link.getTraceContext().traceId()).isEqualTo(span.getTraceId());
        assertThat(link.getTraceContext().spanId()).isEqualTo(span.getSpanId());
    }

    private static List<FinishedSpan> processSpansOf(String queue, String id) {
        return spans("process " + queue).stream().filter(span -> id.equals(span.getTags().get("messaging.message.id"))).toList();
    }

    private static List<FinishedSpan> spans(String name) {
        return TRACER.getSpans().stream().map(span -> (FinishedSpan) span).filter(span -> name.equals(span.getName())).toList();
    }

    /** Writes the trace and span ids into the carrier and reads them back as the parent. */
    static final class HeaderPropagator implements Propagator {

        private final SimpleTracer tracer;

        HeaderPropagator(SimpleTracer tracer) {
            this.tracer = tracer;
        }

        @Override
        public List<String> fields() {
            return List.of("test-trace-id", "test-span-id");
        }

        @Override
        public <C> void inject(TraceContext context, C carrier, Setter<C> setter) {
            setter.set(carrier, "test-trace-id", context.traceId());
            setter.set(carrier, "test-span-id", context.spanId());
        }

        @Override
        public <C> Span.Builder extract(C carrier, Getter<C> getter) {
            String traceId = getter.get(carrier, "test-trace-id");
            if (traceId == null) {
                return tracer.spanBuilder();
            }
            return tracer.spanBuilder().setParent(tracer.traceContextBuilder().traceId(traceId)
                    .spanId(getter.get(carrier, "test-span-id")).sampled(true).build());
        }
    }
}
