package dev.delayjobs.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.PublishRequest;
import dev.delayjobs.test.Recorder;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/**
 * A rate limit holds across instances: three consumers with 12 workers together start no more than 50
 * jobs in a second, while far more are ready. It asserts the limit, not how close to it a busy host
 * comes.
 */
@Tag("slow")
@Tag("timing")
class RateLimitTest {

    private static final int WINDOWS = 5;

    static class Handler {

        final Recorder recorder = new Recorder();

        @DelayedHandler(queue = "limited", concurrency = "4")
        void handle(DelayedJob<Integer> job) {
            recorder.record(job.id(), job.dueAt(), job.attempt(), job.payload());
        }
    }

    @Test
    void threeInstancesTogetherStartNoMoreThanFiftyJobsInAnySecond() {
        String prefix = TestRedis.uniquePrefix();
        String limit = "delay.queues.limited.rate-limit=50/1s";
        try (ConfigurableApplicationContext first = TestApps.run(prefix, List.of(Handler.class), limit);
                ConfigurableApplicationContext second = TestApps.run(prefix, List.of(Handler.class), limit);
                ConfigurableApplicationContext third = TestApps.run(prefix, List.of(Handler.class), limit)) {
            List<Recorder> recorders = List.of(first.getBean(Handler.class).recorder,
                    second.getBean(Handler.class).recorder, third.getBean(Handler.class).recorder);
            // eight windows' worth, all due now: without the limit 12 workers start them in well under a second
            List<PublishRequest> requests = new ArrayList<>();
            for (int i = 0; i < 400; i++) {
                requests.add(PublishRequest.of(i).key("r-" + i));
            }
            first.getBean(DelayPublisher.class).publishAll("limited", requests);

            await().atMost(Duration.ofSeconds(60)).until(() -> !deliveries(recorders).isEmpty());
            Instant firstStart = deliveries(recorders).stream().map(Recorder.Delivery::handledAt).min(Instant::compareTo)
                    .orElseThrow();
            // jobs start in waves, one a window after the first: measuring windows whose ends fall
            // halfway between waves count whole waves, whatever the jitter of each start
            Instant from = firstStart.plusMillis(500);
            Instant to = from.plusSeconds(WINDOWS);
            await("jobs keep starting under the limit").atMost(Duration.ofSeconds(60))
                    .until(() -> deliveries(recorders).stream().anyMatch(d -> d.handledAt().isAfter(to)));

            List<Recorder.Delivery> all = deliveries(recorders);
            long[] started = new long[WINDOWS];
            for (int window = 0; window < WINDOWS; window++) {
                Instant windowFrom = from.plusSeconds(window);
                Instant windowTo = windowFrom.plusSeconds(1);
                started[window] = all.stream()
                        .filter(d -> !d.handledAt().isBefore(windowFrom) && d.handledAt().isBefore(windowTo)).count();
            }
            System.out.printf("rate limit 50/1s on 3 instances: %s jobs started in each of %d seconds%n",
                    Arrays.toString(started), WINDOWS);
            assertThat(Arrays.stream(started).boxed().toList()).as("jobs started in each second, all instances together")
                    .allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(50L));
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
