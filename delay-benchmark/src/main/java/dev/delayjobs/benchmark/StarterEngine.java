package dev.delayjobs.benchmark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.PublishRequest;

/** The starter: {@link DelayPublisher} to publish, a {@code @DelayedHandler} with 8 workers to consume. */
final class StarterEngine implements Engine {

    static final String QUEUE = "bench";

    private final DelayPublisher publisher;
    private final Payload payload = new Payload("x".repeat(PAYLOAD_BYTES - "{\"data\":\"\"}".length()));

    StarterEngine(DelayPublisher publisher) {
        this.publisher = publisher;
    }

    @Override
    public String name() {
        return "starter";
    }

    @Override
    public void publishOne(long delayMs) {
        publisher.publish(QUEUE, payload, Duration.ofMillis(delayMs));
    }

    @Override
    public void publishMany(long[] delaysMs) {
        List<PublishRequest> requests = new ArrayList<>(delaysMs.length);
        for (long delay : delaysMs) {
            requests.add(PublishRequest.of(payload).delay(Duration.ofMillis(delay)));
        }
        publisher.publishAll(QUEUE, requests);
    }

    @Override
    public void close() {
        // the application context stops the containers
    }

    /** The job payload: {"data":"xxx..."}, 100 bytes of JSON. */
    record Payload(String data) {
    }

    /** The handler: records lateness against the due time the starter stored, nothing else. */
    static final class Handler {

        @DelayedHandler(queue = QUEUE, concurrency = "${benchmark.concurrency:8}", maxAttempts = "3")
        void handle(DelayedJob<Payload> job) {
            Lateness.record(job.dueAt().toEpochMilli());
        }
    }
}
