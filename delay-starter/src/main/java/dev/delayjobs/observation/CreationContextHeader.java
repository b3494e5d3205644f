package dev.delayjobs.observation;

import java.util.Map;

import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;

/**
 * The publish span's context, stored with each job as one header so the process span can link to
 * it (a propagator's own headers can only become a parent, never a link): {@code
 * <trace-id>-<span-id>[-01|-00]}, the last part the sampling decision when there was one.
 */
final class CreationContextHeader {

    static final String NAME = "delay-creation-context";

    private CreationContextHeader() {
    }

    static void write(TraceContext context, Map<String, String> headers) {
        Boolean sampled = context.sampled();
        headers.put(NAME, context.traceId() + "-" + context.spanId() + (sampled == null ? "" : sampled ? "-01" : "-00"));
    }

    /** The stored context, or null when the job has none or it is not one this header wrote. */
    static TraceContext read(Tracer tracer, Map<String, String> headers) {
        String value = headers == null ? null : headers.get(NAME);
        if (value == null) {
            return null;
        }
        String[] parts = value.split("-", -1);
        if (parts.length < 2 || parts.length > 3 || parts[0].isEmpty() || parts[1].isEmpty()) {
            return null;
        }
        TraceContext.Builder builder = tracer.traceContextBuilder().traceId(parts[0]).spanId(parts[1]);
        if (parts.length == 3) {
            builder.sampled("01".equals(parts[2]));
        }
        return builder.build();
    }
}
