package dev.delayjobs.actuate;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.SmartLifecycle;

import dev.delayjobs.core.DelayQueueObserver;
import dev.delayjobs.redis.QueueStats;
import dev.delayjobs.partition.PartitionedQueues;
import dev.delayjobs.queue.QueueName;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Micrometer metrics of the delay queues.
 *
 * <ul>
 * <li>{@code delay.queue.jobs{queue, state=delayed|ready|running|dead}}: jobs in Redis, all
 * instances together (every instance reports the same value);
 * <li>{@code delay.queue.oldest.overdue{queue}}: how long the oldest due job has waited for a consumer;
 * <li>{@code delay.queue.consumers{queue}}: consumer instances with a live lease;
 * <li>{@code delay.queue.groups{queue}}: groups with ready jobs (the default group not counted);
 * <li>{@code delay.jobs.published|completed|retried|dead{queue}}: counters of this instance;
 * <li>{@code delay.handler.duration{queue, outcome}}: handler time of this instance;
 * <li>{@code delay.jobs.lateness{queue}}: handler start minus due time, with percentiles;
 * <li>{@code delay.schedule.ticks{queue, outcome=handled|retrying|dead|skipped}}: how the jobs of
 * the queue's schedule ticks ended, counted in Redis by the scripts that end them (all instances
 * together: every instance reports the same value).
 * </ul>
 * Gauges read all counts of a queue in one Redis call and keep them for {@code cacheTtl}, so a
 * scrape costs one call per queue at most. Binding calls no Redis: the queues of the registry get
 * their meters when the application starts (as a {@link SmartLifecycle}), the others at first use.
 */
public class DelayQueueMetrics implements MeterBinder, DelayQueueObserver, SmartLifecycle {

    private static final Log logger = LogFactory.getLog(DelayQueueMetrics.class);

    /** The outcomes the job-ending scripts count in the queue's stats as {@code ticks-<outcome>} (see _ticks.lua). */
    private static final List<String> TICK_OUTCOMES = List.of("handled", "retrying", "dead", "skipped");

    private final PartitionedQueues store;
    private final Duration cacheTtl;
    private final Map<String, CachedStats> stats = new ConcurrentHashMap<>();
    private final Map<String, Meters> meters = new ConcurrentHashMap<>();
    private volatile MeterRegistry registry;
    private volatile boolean running;

    public DelayQueueMetrics(PartitionedQueues store, Duration cacheTtl) {
        this.store = store;
        this.cacheTtl = cacheTtl;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        this.registry = registry;
        if (running) {
            addRegisteredQueues();
        }
    }

    /** Adds the meters of every queue in the registry, once bound; the first Redis call of the metrics. */
    @Override
    public void start() {
        running = true;
        if (registry != null) {
            addRegisteredQueues();
        }
    }

    @Override
    public void stop() {
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    private void addRegisteredQueues() {
        try {
            RegisteredQueues.of(store).forEach(queue -> meters(queue.value()));
        }
        catch (RuntimeException ex) {
            logger.warn("Cannot list the delay queues for metrics; each is added when first used here: " + ex.getMessage());
        }
    }

    /** A queue this instance starts consuming gets its meters at once, before its first job. */
    @Override
    public void consuming(String queue) {
        meters(queue);
    }

    @Override
    public void published(String queue, int count) {
        Meters m = meters(queue);
        if (m != null) {
            m.published.increment(count);
        }
    }

    @Override
    public void started(String queue, Duration lateness) {
        Meters m = meters(queue);
        if (m != null) {
            m.lateness.record(lateness);
        }
    }

    @Override
    public void finished(String queue, Outcome outcome, Duration duration) {
        Meters m = meters(queue);
        if (m != null) {
            m.outcomes.get(outcome).increment();
            m.durations.get(outcome).record(duration);
        }
    }

    private Meters meters(String queue) {
        MeterRegistry r = registry;
        if (r == null) {
            return null;
        }
        return meters.computeIfAbsent(queue, q -> new Meters(r, q));
    }

    /**
     * Counts of one queue, read from Redis at most once per {@code cacheTtl}; a failed read is
     * remembered as long (NaN), so a scrape during an outage waits for Redis once per queue, not
     * once per gauge.
     */
    private double read(String queue, ToDoubleFunction<QueueStats> value) {
        CachedStats cached = stats.computeIfAbsent(queue, q -> new CachedStats());
        synchronized (cached) {
            if (!cached.read || System.nanoTime() - cached.readAt > cacheTtl.toNanos()) {
                try {
                    cached.value = store.stats(QueueName.of(queue)).total();
                }
                catch (RuntimeException ex) {
                    cached.value = null;
                }
                cached.read = true;
                cached.readAt = System.nanoTime();
            }
            return cached.value == null ? Double.NaN : value.applyAsDouble(cached.value);
        }
    }

    private static final class CachedStats {

        boolean read;
        QueueStats value;
        long readAt;
    }

    private final class Meters {

        final Counter published;
        final Map<Outcome, Counter> outcomes = new EnumMap<>(Outcome.class);
        final Map<Outcome, Timer> durations = new EnumMap<>(Outcome.class);
        final Timer lateness;

        Meters(MeterRegistry registry, String queue) {
            gauge(registry, queue, "delayed", QueueStats::delayed);
            gauge(registry, queue, "ready", QueueStats::ready);
            gauge(registry, queue, "running", QueueStats::running);
            gauge(registry, queue, "dead", QueueStats::dead);
            Gauge.builder("delay.queue.consumers", this, m -> read(queue, stats -> stats.instances().size()))
                    .tag("queue", queue)
                    .description("Consumer instances holding a lease on the queue")
                    .register(registry);
            Gauge.builder("delay.queue.groups", this, m -> read(queue, QueueStats::groups))
                    .tag("queue", queue)
                    .description("Groups of the queue with ready jobs, or parked at their group-concurrency limit "
                            + "(the default group not counted)")
                    .register(registry);
            Gauge.builder("delay.queue.paused", this, m -> read(queue, stats -> stats.control().paused() ? 1 : 0))
                    .tag("queue", queue)
                    .description("1 while the queue is paused (no instance claims its jobs), else 0")
                    .register(registry);
            TimeGauge.builder("delay.queue.oldest.overdue", this, TimeUnit.MILLISECONDS,
                    m -> read(queue, QueueStats::oldestLatenessMillis))
                    .tag("queue", queue)
                    .description("How long the oldest due job of the queue has waited for a consumer")
                    .register(registry);
            published = Counter.builder("delay.jobs.published").tag("queue", queue)
                    .description("Jobs published by this instance").register(registry);
            for (Outcome outcome : Outcome.values()) {
                String name = outcome.name().toLowerCase(Locale.ROOT);
                outcomes.put(outcome, Counter.builder("delay.jobs." + name).tag("queue", queue)
                        .description("Jobs " + name + " by the handlers of this instance").register(registry));
                durations.put(outcome, Timer.builder("delay.handler.duration").tag("queue", queue).tag("outcome", name)
                        .description("Time the handler took").register(registry));
            }
            for (String outcome : TICK_OUTCOMES) {
                FunctionCounter.builder("delay.schedule.ticks", this,
                        m -> read(queue, stats -> stats.totals().getOrDefault("ticks-" + outcome, 0L)))
                        .tag("queue", queue)
                        .tag("outcome", outcome)
                        .description("Schedule ticks of the queue by how their job ended (all instances)")
                        .register(registry);
            }
            lateness = Timer.builder("delay.jobs.lateness").tag("queue", queue)
                    .description("Handler start minus the job's due time")
                    .publishPercentiles(0.5, 0.9, 0.99)
                    .publishPercentileHistogram()
                    .register(registry);
        }

        private void gauge(MeterRegistry registry, String queue, String state, ToDoubleFunction<QueueStats> value) {
            Gauge.builder("delay.queue.jobs", this, m -> read(queue, value))
                    .tag("queue", queue)
                    .tag("state", state)
                    .description("Jobs of the queue in Redis, by state (all instances)")
                    .register(registry);
        }
    }
}
