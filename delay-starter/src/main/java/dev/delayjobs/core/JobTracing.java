package dev.delayjobs.core;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Observes publishing and handling, and carries a trace context from the one to the other: what
 * {@link #publish} hands its action is stored with the jobs, and {@link #handle} gets it back. The
 * starter's implementation, with Micrometer's Observation API, is
 * {@code dev.delayjobs.observation.ObservedJobTracing} ({@code delay.observation.enabled=true}).
 */
public interface JobTracing {

    /** Observes nothing and carries nothing. */
    JobTracing NONE = new JobTracing() {
        @Override
        public <T> T publish(String queue, int jobs, Function<Map<String, String>, T> publish) {
            return publish.apply(Map.of());
        }

        @Override
        public void handle(String queue, String id, int attempt, Map<String, String> headers, HandlerCall call)
                throws Throwable {
            call.run();
        }
    };

    /** Runs a publish of {@code jobs} jobs; {@code publish} gets the headers to store with each. */
    <T> T publish(String queue, int jobs, Function<Map<String, String>, T> publish);

    /**
     * {@link #publish} for a publish that completes later (the reactive publisher's): observed until
     * the future completes. By default observed as {@link #publish} does, up to the future's return.
     */
    default <T> CompletableFuture<T> publishAsync(String queue, int jobs, Function<Map<String, String>, CompletableFuture<T>> publish) {
        return publish(queue, jobs, publish);
    }

    /** Runs one handler call of a job, in the trace its stored {@code headers} continue. */
    void handle(String queue, String id, int attempt, Map<String, String> headers, HandlerCall call) throws Throwable;

    /** A handler call; what it throws is the handler's failure. */
    @FunctionalInterface
    interface HandlerCall {

        void run() throws Throwable;
    }
}
