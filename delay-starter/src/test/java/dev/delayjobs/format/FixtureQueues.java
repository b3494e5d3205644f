package dev.delayjobs.format;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What the data-format fixtures hold, shared by the writer ({@link DataFormatFixtures}) and the test
 * that reads them ({@link DataFormatFixturesTest}): the key prefix, one queue per situation, and the
 * settings every application on these queues uses. Due times lie far in the past or the future, so
 * that the fixture reads the same whenever the test runs.
 */
final class FixtureQueues {

    /** The key prefix the fixtures are written under and loaded back under (keys embed it). */
    static final String PREFIX = "fixture";

    /** Due long ago: READY whenever the fixture is loaded. */
    static final Instant PAST = Instant.parse("2020-01-01T00:00:00Z");

    /** Due long after any test run: stays DELAYED. */
    static final Instant FUTURE = Instant.parse("2100-01-01T00:00:00Z");

    /** DELAYED jobs ({@code delayed-*}, {@code keyed-delayed}) and READY ones ({@code ready-*}). */
    static final String WAITING = "waiting";

    /** A RUNNING and a PREFETCHED job of a consumer that died, the running one with a keyed successor. */
    static final String HELD = "held";

    /** The instance id of the consumer that died holding jobs of {@link #HELD}. */
    static final String GONE_INSTANCE = "fixture-gone";

    /** DEAD jobs, with their errors (max-attempts 1). */
    static final String FAILING = "failing";

    /** A job that failed once and waits for its retry (attempts 1, DELAYED). */
    static final String RETRYING = "retrying";

    /** A queue in 3 partitions. */
    static final String PARTS = "parts";

    static final int PARTITIONS = 3;

    /** A paused queue with a READY job. */
    static final String PAUSED = "paused";

    /** A queue with a runtime rate limit and a READY job. */
    static final String LIMITED = "limited";

    static final String RATE_LIMIT = "5/1s";

    /**
     * A queue with {@code group-concurrency=1}: {@code grouped-a-1} of group {@link #GROUP_A} RUNNING
     * in the consumer that died (its group counted as held, {@code grouped-a-2} READY behind it),
     * {@code grouped-b-1} READY in {@link #GROUP_B}, {@code grouped-none} READY in the default group,
     * {@code grouped-delayed} DELAYED in {@link #GROUP_A}.
     */
    static final String GROUPED = "grouped";

    static final String GROUP_A = "merchant-a";

    static final String GROUP_B = "merchant-b";

    /** A queue bridging a Redisson RDelayedQueue over the list {@link #LEGACY_LIST}. */
    static final String BRIDGED = "bridged";

    static final String LEGACY_LIST = "fixture-legacy";

    /** The Redisson keys of {@link #LEGACY_LIST} (key names are Redisson's). */
    static final List<String> LEGACY_KEYS = List.of(LEGACY_LIST, "redisson_delay_queue_timeout:{" + LEGACY_LIST + "}",
            "redisson_delay_queue:{" + LEGACY_LIST + "}");

    /** The payload of every fixture job: a name that says what the job stands for. */
    record Item(String name) {
    }

    private FixtureQueues() {
    }

    /** The settings of every application on the fixture's queues, followed by {@code extra}. */
    static String[] properties(String... extra) {
        List<String> properties = new ArrayList<>(List.of(
                "delay.queues." + PARTS + ".partitions=" + PARTITIONS,
                "delay.queues." + FAILING + ".max-attempts=1",
                "delay.queues." + RETRYING + ".max-attempts=3",
                "delay.queues." + RETRYING + ".backoff.initial=1h",
                "delay.queues." + RETRYING + ".backoff.max=1h",
                "delay.queues." + RETRYING + ".backoff.jitter=0",
                "delay.queues." + BRIDGED + ".redisson-delayed-queue=" + LEGACY_LIST,
                "delay.queues." + BRIDGED + ".redisson-codec=string",
                "delay.queues." + GROUPED + ".group-concurrency=1",
                // the fixture's dead jobs died when it was written: keep them however old they are
                "delay.dead-retention=36500d"));
        properties.addAll(List.of(extra));
        return properties.toArray(String[]::new);
    }
}
