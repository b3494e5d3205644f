package dev.delayjobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.test.Recorder;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/** Two instances consuming one queue share the work; without failures, no job is handled twice. */
@Tag("slow")
@Tag("timing")
class TwoInstancesTest {

    static class Handler {

        final Recorder recorder = new Recorder();

        @DelayedHandler(queue = "shared", concurrency = "4")
        void handle(DelayedJob<Integer> job) {
            recorder.record(job.id(), job.dueAt(), job.attempt(), job.payload());
        }
    }

    @Test
    void twoThousandJobsOnTwoInstancesAreEachHandledExactlyOnce() {
        String prefix = TestRedis.uniquePrefix();
        try (ConfigurableApplicationContext first = TestApps.run(prefix, List.of(Handler.class));
                ConfigurableApplicationContext second = TestApps.run(prefix, List.of(Handler.class))) {
            Recorder a = first.getBean(Handler.class).recorder;
            Recorder b = second.getBean(Handler.class).recorder;
            DelayPublisher publisher = first.getBean(DelayPublisher.class);
            Random random = new Random(7);
            List<PublishRequest> requests = new ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                requests.add(PublishRequest.of(i).delay(Duration.ofMillis(random.nextInt(2000))).key("s-" + i));
            }
            publisher.publishAll("shared", requests);

            await().atMost(Duration.ofSeconds(60)).until(() -> a.total() + b.total() >= 2000);

            Map<String, Integer> union = new HashMap<>(a.counts());
            b.counts().forEach((id, count) -> union.merge(id, count, Integer::sum));
            assertThat(union).hasSize(2000).allSatisfy((id, count) -> assertThat(count).as(id).isEqualTo(1));
            assertThat(a.total()).as("first instance's share").isPositive();
            assertThat(b.total()).as("second instance's share").isPositive();
            List<Recorder.Delivery> all = new ArrayList<>(a.deliveries());
            all.addAll(b.deliveries());
            assertThat(all).allSatisfy(d -> assertThat(d.handledAt()).isAfterOrEqualTo(d.dueAt()));
        }
    }
}
