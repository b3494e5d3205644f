package dev.delayjobs.redis;

import java.util.function.LongConsumer;

import org.redisson.api.RTopic;
import org.redisson.client.RedisException;

/** A live subscription to one of a queue's channels; Redisson re-subscribes after a reconnect. */
public final class ChannelSubscription implements AutoCloseable {

    private final RTopic topic;
    private final int listenerId;

    ChannelSubscription(RTopic topic, int listenerId) {
        this.topic = topic;
        this.listenerId = listenerId;
    }

    /** Listens on {@code topic}, a queue's wake channel, for the due times announced on it. */
    static ChannelSubscription ofDueTimes(RTopic topic, String queue, LongConsumer onEarlierDue) {
        int listenerId = RedisCalls.call("subscribe to", queue, () -> topic.addListener(String.class, (channel, message) -> {
            try {
                onEarlierDue.accept(Long.parseLong(message));
            }
            catch (NumberFormatException ignored) {
                // not one of ours; the sweep keeps the queue moving whatever is published here
            }
        }));
        return new ChannelSubscription(topic, listenerId);
    }

    /** Whether the listener is still registered with Redisson. */
    public boolean isActive() {
        try {
            return topic.countListeners() > 0;
        }
        catch (RedisException ex) {
            return false;
        }
    }

    @Override
    public void close() {
        try {
            topic.removeListener(listenerId);
        }
        catch (RedisException ex) {
            // the connection is gone, and the subscription with it
        }
    }
}
