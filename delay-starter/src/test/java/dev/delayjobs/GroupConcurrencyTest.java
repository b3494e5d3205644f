package dev.delayjobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/**
 * {@code delay.queues.<q>.group-concurrency=1} across two application contexts: never two jobs of one
 * group running at once, as the handlers themselves see it, while jobs of different groups run side
 * by side.
 */
@Tag("slow")
class GroupConcurrencyTest {

    static final String QUEUE = "grouped";
    /** Per group, the handlers running now (both contexts: one JVM). */
    static final Map<String, AtomicInteger> running = new ConcurrentHashMap<>();
    static final AtomicInteger runningAll = new AtomicInteger();
    static final AtomicInteger mostAtOnce = new AtomicInteger();
    static final Queue<String> overlaps = new ConcurrentLinkedQueue<>();
    static final Queue<String> handled = new ConcurrentLinkedQueue<>();

    static class Handler {

        @DelayedHandler(queue = QUEUE, concurrency = "4")
        void handle(DelayedJob<String> job) throws InterruptedException {
            String group = job.payload().substring(0, job.payload().indexOf('/'));
            AtomicInteger ofGroup = running.computeIfAbsent(group, g -> new AtomicInteger());
            int now = ofGroup.incrementAndGet();
            mostAtOnce.accumulateAndGet(runningAll.incrementAndGet(), Math::max);
            if (now > 1) {
                overlaps.add(job.payload() + " started while " + (now - 1) + " other job(s) of " + group + " ran");
            }
            try {
                // the handler's work: long enough that a second job of the group would meet it
                Thread.sleep(5);
            }
            finally {
                runningAll.decrementAndGet();
                ofGroup.decrementAndGet();
                handled.add(job.payload());
            }
        }
    }

    @Test
    void neverTwoJobsOfOneGroupRunAtOnceAcrossInstances() {
        String prefix = TestRedis.uniquePrefix();
        String[] props = { "delay.queues." + QUEUE + ".group-concurrency=1" };
        try (ConfigurableApplicationContext first = TestApps.run(prefix, List.of(Handler.class), props);
                ConfigurableApplicationContext second = TestApps.run(prefix, List.of(Handler.class), props)) {
            DelayPublisher publisher = first.getBean(DelayPublisher.class);
            List<PublishRequest> requests = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                for (String group : List.of("g1", "g2", "g3", "g4", "g5", "g6")) {
                    requests.add(PublishRequest.of(group + "/" + i).group(group));
                }
            }
            publisher.publishAll(QUEUE, requests);

            await().atMost(Duration.ofSeconds(60)).until(() -> handled.size() >= requests.size());

            assertThat(overlaps).as("jobs of one group that ran at once").isEmpty();
            assertThat(handled).as("each job once").hasSize(180).doesNotHaveDuplicates();
            assertThat(mostAtOnce.get()).as("groups ran side by side, so an overlap could have been seen").isGreaterThan(1);
        }
    }
}
