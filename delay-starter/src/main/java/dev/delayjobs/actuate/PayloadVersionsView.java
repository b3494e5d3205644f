package dev.delayjobs.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.delayjobs.partition.PartitionedQueues;
import dev.delayjobs.queue.QueueName;
import dev.delayjobs.redis.PayloadVersionCounts;

/**
 * A queue's waiting jobs per payload version, as the endpoint shows them: when every waiting job
 * was read, {@code exact} is true and a version missing here has no waiting job left (its upcaster
 * may go, see docs/payload-versions.md); otherwise each count is a lower bound, from a sample of at
 * most {@value PayloadVersionCounts#MOST_JOBS} jobs per partition spread over the due times.
 *
 * @param waiting the waiting jobs (delayed and ready; running and dead ones are not counted)
 * @param read how many of them were read
 * @param exact whether every waiting job was read
 * @param jobs jobs read per payload version ("at least" when not exact)
 * @param readAt when Redis was read: the counts are cached for {@link Cache#TTL}
 */
public record PayloadVersionsView(long waiting, long read, boolean exact, Map<Integer, Long> jobs, Instant readAt) {

    static PayloadVersionsView of(PayloadVersionCounts counts, Instant readAt) {
        return new PayloadVersionsView(counts.waiting(), counts.read(), counts.exact(), counts.byVersion(), readAt);
    }

    /** The last view of each queue, read again from Redis at most once per {@link #TTL}. */
    static final class Cache {

        static final Duration TTL = Duration.ofSeconds(10);

        private final PartitionedQueues store;
        private final Map<QueueName, PayloadVersionsView> views = new ConcurrentHashMap<>();

        Cache(PartitionedQueues store) {
            this.store = store;
        }

        PayloadVersionsView of(QueueName queue) {
            return views.compute(queue, (name, last) -> last != null
                    && last.readAt().plus(TTL).isAfter(Instant.now()) ? last
                            : PayloadVersionsView.of(store.payloadVersions(name), Instant.now()));
        }
    }
}
