package dev.delayjobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.delayjobs.test.Recorder;
import dev.delayjobs.test.RunningApp;

/** Jobs are handed to their handler when due, never before, exactly once when nothing fails. */
class DeliveryTest {

    record OrderTimeout(long orderId, String note) {
    }

    static class Handlers {

        final Recorder typed = new Recorder();
        final Recorder wrapped = new Recorder();
        final Recorder mixedA = new Recorder();
        final Recorder mixedB = new Recorder();

        @DelayedHandler(queue = "typed")
        void typed(OrderTimeout event) {
            typed.record(Long.toString(event.orderId()), null, 0, event);
        }

        @DelayedHandler(queue = "wrapped", concurrency = "2")
        void wrapped(DelayedJob<OrderTimeout> job) {
            wrapped.record(job.id(), job.dueAt(), job.attempt(), job);
        }

        @DelayedHandler(queue = "mixed-a", concurrency = "4")
        void mixedA(DelayedJob<Map<String, Object>> job) {
            mixedA.record(job.id(), job.dueAt(), job.attempt(), job.payload());
        }

        @DelayedHandler(queue = "mixed-b", concurrency = "${test.mixed-b.concurrency}")
        void mixedB(DelayedJob<Map<String, Object>> job) {
            mixedB.record(job.id(), job.dueAt(), job.attempt(), job.payload());
        }
    }

    @RegisterExtension
    static final RunningApp<Handlers> app = RunningApp.of(Handlers.class, "test.mixed-b.concurrency=4");

    @Test
    void typedPayloadIsHandledAfterItsDelayAndNotBefore() {
        Instant before = Instant.now();
        String id = app.publisher().publish("typed", new OrderTimeout(42, "unpaid"), Duration.ofMillis(1500));
        assertThat(id).isNotBlank();

        await().atMost(Duration.ofSeconds(10)).until(() -> app.handlers().typed.count("42") == 1);
        Recorder.Delivery delivery = app.handlers().typed.deliveries().get(0);
        assertThat(delivery.payload()).isEqualTo(new OrderTimeout(42, "unpaid"));
        assertThat(delivery.handledAt()).isAfterOrEqualTo(before.plusMillis(1500));
    }

    @Test
    void delayedJobCarriesIdAttemptAndDueTime() {
        Instant dueAt = Instant.now().plusMillis(800);
        String id = app.publisher().publishAt("wrapped", new OrderTimeout(7, "x"), dueAt, "order-7");
        assertThat(id).isEqualTo("order-7");

        await().atMost(Duration.ofSeconds(10)).until(() -> app.handlers().wrapped.count("order-7") == 1);
        Recorder.Delivery delivery = app.handlers().wrapped.deliveries().stream().filter(d -> d.id().equals("order-7")).findFirst().orElseThrow();
        DelayedJob<?> job = (DelayedJob<?>) delivery.payload();
        assertThat(job.queue()).isEqualTo("wrapped");
        assertThat(job.payload()).isEqualTo(new OrderTimeout(7, "x"));
        assertThat(job.attempt()).isEqualTo(1);
        assertThat(job.dueAt()).isEqualTo(Instant.ofEpochMilli(dueAt.toEpochMilli()));
        assertThat(job.publishedAt()).isBefore(job.dueAt());
        assertThat(delivery.handledAt()).isAfterOrEqualTo(job.dueAt());
        assertThat(app.publisher().find("wrapped", "order-7")).as("an acked job is gone").isEmpty();
    }

    @Test
    void zeroDelayIsHandledAtOnce() {
        String id = app.publisher().publish("wrapped", new OrderTimeout(1, "now"), Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> app.handlers().wrapped.count(id) == 1);
    }

    @Test
    void thousandJobsWithMixedDelaysOnTwoContainersAreEachHandledExactlyOnceAndNeverEarly() {
        Random random = new Random(20261121);
        Map<String, Long> dueByIdA = new HashMap<>();
        Map<String, Long> dueByIdB = new HashMap<>();
        List<PublishRequest> batch = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            Duration delay = Duration.ofMillis(random.nextInt(3000));
            Map<String, Object> payload = Map.of("n", i);
            if (i % 2 == 0) {
                // one by one to queue A
                long earliestDue = System.currentTimeMillis() + delay.toMillis();
                dueByIdA.put(app.publisher().publish("mixed-a", payload, delay), earliestDue);
            }
            else {
                batch.add(PublishRequest.of(payload).delay(delay).key("b-" + i));
                dueByIdB.put("b-" + i, System.currentTimeMillis() + delay.toMillis());
            }
        }
        List<String> ids = app.publisher().publishAll("mixed-b", batch);
        assertThat(ids).containsExactlyElementsOf(batch.stream().map(PublishRequest::key).toList());

        await().atMost(Duration.ofSeconds(60)).until(() -> app.handlers().mixedA.total() + app.handlers().mixedB.total() >= 1000);

        assertThat(app.handlers().mixedA.counts()).hasSize(500).allSatisfy((id, count) -> assertThat(count).as(id).isEqualTo(1));
        assertThat(app.handlers().mixedB.counts()).hasSize(500).allSatisfy((id, count) -> assertThat(count).as(id).isEqualTo(1));
        assertThat(app.handlers().mixedA.counts().keySet()).isEqualTo(dueByIdA.keySet());
        assertThat(app.handlers().mixedB.counts().keySet()).isEqualTo(dueByIdB.keySet());
        for (Recorder.Delivery d : app.handlers().mixedA.deliveries()) {
            assertThat(d.handledAt()).as("job %s handled before due", d.id()).isAfterOrEqualTo(d.dueAt());
            assertThat(d.dueAt().toEpochMilli()).isGreaterThanOrEqualTo(dueByIdA.get(d.id()) - 1000);
        }
        for (Recorder.Delivery d : app.handlers().mixedB.deliveries()) {
            assertThat(d.handledAt()).as("job %s handled before due", d.id()).isAfterOrEqualTo(d.dueAt());
            // due time is Redis now + delay; Redis shares this machine's clock
            assertThat(d.dueAt().toEpochMilli()).isGreaterThanOrEqualTo(dueByIdB.get(d.id()) - 1000);
        }
    }
}
