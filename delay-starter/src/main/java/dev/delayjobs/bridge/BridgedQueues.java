package dev.delayjobs.bridge;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

import dev.delayjobs.queue.QueueName;

/** The queues of this application that bridge a Redisson {@code RDelayedQueue}, by name. */
public final class BridgedQueues {

    private final Map<String, BridgedQueue> byName;

    public BridgedQueues(List<BridgedQueue> queues) {
        this.byName = queues.stream().collect(Collectors.toUnmodifiableMap(BridgedQueue::queue, Function.identity()));
    }

    public Optional<BridgedQueue> find(QueueName queue) {
        return Optional.ofNullable(byName.get(queue.value()));
    }

    public Collection<BridgedQueue> all() {
        return byName.values();
    }

    /**
     * Throws {@link #refused} when {@code queue} offers its publishes to its {@code RDelayedQueue}:
     * for the publishers that do not offer (the reactive one).
     */
    public void refuseIfOffered(String queue, String what) {
        find(QueueName.of(queue)).filter(BridgedQueue::offersPublishes).ifPresent(bridged -> {
            throw refused(bridged, what);
        });
    }

    /** The exception for a call the compatibility mode cannot serve, naming the way out. */
    static UnsupportedOperationException refused(BridgedQueue queue, String what) {
        return new UnsupportedOperationException("Queue '" + queue.queue() + "' runs in compatibility mode over the "
                + "Redisson RDelayedQueue '" + queue.target() + "', whose elements have no id or key: " + what
                + " needs native jobs. Set delay.queues." + queue.queue() + ".redisson-publish=false once no consumer "
                + "calls take() on the list any more, so that publishes become native jobs (see docs/migration.md)");
    }
}
