package dev.delayjobs.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.PublishRequest;
import dev.delayjobs.test.Recorder;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/** A rate limit holds across instances: three consumers with 12 workers together start 50 jobs a second. */
class RateLimitTest {

    static class Handler {

        final Recorder recorder = new Recorder();

        @DelayedHandler(queue = "limited", concurrency = "4")
        void handle(DelayedJob<Integer> job) {
            recorder.record(job.id(), job.dueAt(), job.attempt(), job.payload());
        }
    }

    @Test
    void threeInstancesTogetherStartFiftyJobsASecondOverTwentySeconds() {
        String prefix = TestRedis.uniquePrefix();
        String limit = "delay.queues.limited.rate-limit=50/1s";
        try (ConfigurableApplicationContext first = TestApps.run(prefix, List.of(Handler.class), limit);
                ConfigurableApplicationContext second = TestApps.run(prefix, List.of(Handler.class), limit);
                ConfigurableApplicationContext third = TestApps.run(prefix, List.of(Handler.class), limit)) {
            List<Recorder> recorders = List.of(first.getBean(Handler.class).recorder,
                    second.getBean(Handler.class).recorder, third.getBean(Handler.class).recorder);
            List<PublishRequest> requests = new ArrayList<>();
            for (int i = 0; i < 1500; i++) {
                requests.add(PublishRequest.of(i).key("r-" + i));
            }
            first.getBean(DelayPublisher.class).publishAll("limited", requests);

            await().atMost(Duration.ofSeconds(60)).until(() -> deliveries(recorders).size() > 50);
            Instant firstStart = deliveries(recorders).stream().map(Recorder.Delivery::handledAt).min(Instant::compareTo)
                    .orElseThrow();
            // jobs start in waves, one a window after the first: a measuring window whose ends fall
            // halfway between waves counts whole waves, whatever the jitter of each
            Instant from = firstStart.plusMillis(500);
            Instant to = from.plusSeconds(20);
            await().atMost(Duration.ofSeconds(60)).until(() -> deliveries(recorders).stream()
                    .anyMatch(d -> d.handledAt().isAfter(to)));

            List<Recorder.Delivery> all = deliveries(recorders);
            long inWindow = all.stream().filter(d -> !d.handledAt().isBefore(from) && d.handledAt().isBefore(to)).count();
            System.out.printf("rate limit 50/1s on 3 instances: %.2f jobs/s over 20 s%n", inWindow / 20.0);
            assertThat(inWindow / 20.0).as("jobs started per second over 20 s, all instances together")
                    .isBetween(47.5, 50.0);
            assertThat(recorders).as("every instance took part").allSatisfy(r -> assertThat(r.total()).isPositive());
            assertThat(all).extracting(Recorder.Delivery::id).doesNotHaveDuplicates();
        }
    }

    private static List<Recorder.Delivery> deliveries(List<Recorder> recorders) {
        List<Recorder.Delivery> all = new ArrayList<>();
        recorders.forEach(r -> all.addAll(r.deliveries()));
        return all;
    }
}
