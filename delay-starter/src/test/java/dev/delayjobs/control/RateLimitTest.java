package dev.delayjobs.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.PublishRequest;
import dev.delayjobs.redis.RateLogWatch;
import dev.delayjobs.test.Recorder;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/**
 * A rate limit holds across instances: three consumers with 12 workers together start no more than 50
 * jobs in any second of the Redis clock, while far more are ready. It asserts the limit, not how close
 * to it a busy host comes.
 */
@Tag("slow")
@Tag("timing")
class RateLimitTest {

    private static final int JOBS = 400;
    private static final int PERMITS = 50;
    private static final long WINDOW_MS = 1000;

    static class Handler {

        final Recorder recorder = new Recorder();

        @DelayedHandler(queue = "limited", concurrency = "4")
        void handle(DelayedJob<Integer> job) {
            recorder.record(job.id(), job.dueAt(), job.attempt(), job.payload());
        }
    }

    @Test
    void threeInstancesTogetherStartNoMoreThanFiftyJobsInAnySecond() throws Exception {
        String prefix = TestRedis.uniquePrefix();
        String limit = "delay.queues.limited.rate-limit=" + PERMITS + "/1s";
        try (RateLogWatch watch = RateLogWatch.start(TestRedis.host(), TestRedis.port(), prefix, "limited");
                ConfigurableApplicationContext first = TestApps.run(prefix, List.of(Handler.class), limit);
                ConfigurableApplicationContext second = TestApps.run(prefix, List.of(Handler.class), limit);
                ConfigurableApplicationContext third = TestApps.run(prefix, List.of(Handler.class), limit)) {
            List<Recorder> recorders = List.of(first.getBean(Handler.class).recorder,
                    second.getBean(Handler.class).recorder, third.getBean(Handler.class).recorder);
            // eight windows' worth, all due now: without the limit 12 workers start them in well under a second
            List<PublishRequest> requests = new ArrayList<>();
            for (int i = 0; i < JOBS; i++) {
                requests.add(PublishRequest.of(i).key("r-" + i));
            }
            first.getBean(DelayPublisher.class).publishAll("limited", requests);

            await("every job handled").atMost(Duration.ofSeconds(60)).until(() -> deliveries(recorders).size() >= JOBS);
            watch.catchUp(TestRedis.sharedClient(), Duration.ofSeconds(30));
            List<Recorder.Delivery> all = deliveries(recorders);
            List<RateLogWatch.Admission> admissions = watch.admissions();

            // the limit is kept where it is decided: claim.lua admits jobs on the Redis clock. A
            // handler starts a moment after its claim, later on a starved JVM, so counting by the
            // handlers' clock would put a late part of one wave with the next one
            long[] times = admissions.stream()
                    .flatMapToLong(a -> LongStream.generate(a::redisMillis).limit(a.jobs()))
                    .sorted().toArray();
            int busiest = busiestWindow(times);
            System.out.printf("rate limit %d/1s on 3 instances: at most %d jobs admitted in any 1 s of the Redis clock;"
                    + " handlers started up to %d ms after their claim; by the handlers' clock %s%n", PERMITS, busiest,
                    longestStartDelay(watch.admittedAt(), all), Arrays.toString(startsPerSecond(all)));
            assertThat(busiest).as("most jobs admitted in any 1 s of the Redis clock, all instances together")
                    .isLessThanOrEqualTo(PERMITS);
            // a claim whose reply was lost is handed back and its jobs claimed again: each claim counts
            assertThat(new HashSet<>(watch.claimed())).as("the jobs claimed are the jobs handled")
                    .isEqualTo(all.stream().map(Recorder.Delivery::id).collect(Collectors.toSet()));
            assertThat(times.length).as("jobs counted by the rate limit, of those claimed").isEqualTo(watch.claimed().size());
            assertThat(recorders).as("every instance took part").allSatisfy(r -> assertThat(r.total()).isPositive());
            assertThat(all).extracting(Recorder.Delivery::id).doesNotHaveDuplicates().hasSize(JOBS);
        }
    }

    /** The most of {@code times} (sorted) in any {@value #WINDOW_MS} ms: the busiest such span starts at one of them. */
    private static int busiestWindow(long[] times) {
        int busiest = 0;
        int end = 0;
        for (int start = 0; start < times.length; start++) {
            while (end < times.length && times[end] < times[start] + WINDOW_MS) {
                end++;
            }
            busiest = Math.max(busiest, end - start);
        }
        return busiest;
    }

    /** For the report: the longest time from a job's claim (Redis clock) to its handler's start (JVM clock, same host). */
    private static long longestStartDelay(Map<String, Long> claimedAt, List<Recorder.Delivery> all) {
        return all.stream().filter(d -> claimedAt.containsKey(d.id()))
                .mapToLong(d -> d.handledAt().toEpochMilli() - claimedAt.get(d.id())).max().orElse(0);
    }

    /**
     * For the report: handler starts in 1 s windows of the JVM clock from half a second after the
     * first, as this test once asserted (a stall of a few hundred ms can put 60 in one).
     */
    private static long[] startsPerSecond(List<Recorder.Delivery> all) {
        Instant from = all.stream().map(Recorder.Delivery::handledAt).min(Instant::compareTo).orElseThrow().plusMillis(500);
        long[] started = new long[JOBS / PERMITS - 2];
        for (Recorder.Delivery d : all) {
            long window = Duration.between(from, d.handledAt()).toMillis();
            if (window >= 0 && window / WINDOW_MS < started.length) {
                started[(int) (window / WINDOW_MS)]++;
            }
        }
        return started;
    }

    private static List<Recorder.Delivery> deliveries(List<Recorder> recorders) {
        List<Recorder.Delivery> all = new ArrayList<>();
        recorders.forEach(r -> all.addAll(r.deliveries()));
        return all;
    }
}
