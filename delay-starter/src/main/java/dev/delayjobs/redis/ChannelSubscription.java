package dev.delayjobs.redis;

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
