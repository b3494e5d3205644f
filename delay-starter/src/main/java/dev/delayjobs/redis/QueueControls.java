package dev.delayjobs.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.redisson.api.RScript;
import org.redisson.api.RScript.Mode;
import org.redisson.api.RScript.ReturnType;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import dev.delayjobs.DelayQueueControl.QueueControlState;
import dev.delayjobs.RateLimit;
import dev.delayjobs.queue.Partition;

/**
 * The operator's settings of the queues, kept in Redis so that every instance applies them: paused
 * or not, and the rate limit set at runtime. {@code claim.lua} reads them on every claim. Each is set
 * per partition: the callers fan an operation out over a queue's partitions.
 */
public final class QueueControls {

    private static final LuaScript PAUSE = LuaScript.load(Script.PAUSE);
    private static final LuaScript RESUME = LuaScript.load(Script.RESUME);
    private static final LuaScript RATE_LIMIT = LuaScript.load(Script.RATE_LIMIT);
    private static final LuaScript CONTROL_STATE = LuaScript.load(Script.CONTROL_STATE);

    private final RedissonClient redisson;
    private final RScript script;
    private final String prefix;

    public QueueControls(RedissonClient redisson, String prefix) {
        this.redisson = redisson;
        this.script = redisson.getScript(StringCodec.INSTANCE);
        this.prefix = prefix;
    }

    /**
     * Pauses {@code queue}; with {@code onlyIfNeverControlled}, only a queue never paused nor
     * resumed before (what {@code paused-on-startup} asks for). Returns whether this call paused it.
     */
    public boolean pause(Partition queue, boolean onlyIfNeverControlled) {
        QueueKeys k = keys(queue);
        Long paused = RedisCalls.call("pause", queue.name(), () -> PAUSE.run(script, Mode.READ_WRITE, ReturnType.LONG,
                k.of(k.control()), onlyIfNeverControlled ? "1" : "0", k.controlChannel()));
        return paused == 1;
    }

    /** Resumes {@code queue}; returns whether it was paused. */
    public boolean resume(Partition queue) {
        QueueKeys k = keys(queue);
        Long resumed = RedisCalls.call("resume", queue.name(), () -> RESUME.run(script, Mode.READ_WRITE, ReturnType.LONG,
                k.of(k.control()), k.controlChannel()));
        return resumed == 1;
    }

    /** Sets the runtime rate limit of {@code queue}, or clears it with {@code null}. */
    public void setRateLimit(Partition queue, @Nullable RateLimit limit) {
        QueueKeys k = keys(queue);
        RedisCalls.call("set the rate limit of", queue.name(), () -> RATE_LIMIT.run(script, Mode.READ_WRITE,
                ReturnType.LONG, k.of(k.control()), limit == null ? "0" : Integer.toString(limit.permits()),
                limit == null ? "0" : Long.toString(limit.window().toMillis()), k.controlChannel()));
    }

    /** The state of {@code queue}, read on the master. */
    public QueueControlState state(Partition queue) {
        QueueKeys k = keys(queue);
        List<Object> r = RedisCalls.call("read the controls of", queue.name(), () -> CONTROL_STATE.run(script,
                Mode.READ_WRITE, ReturnType.LIST, k.of(k.control())));
        return parse(r.get(0), r.get(1));
    }

    /**
     * Calls {@code onChange} when the controls of {@code queue} change (a message may be lost in a
     * reconnect: whoever waits on it also reads the state again now and then).
     */
    public ChannelSubscription subscribe(Partition queue, Runnable onChange) {
        RTopic topic = redisson.getTopic(keys(queue).controlChannel(), StringCodec.INSTANCE);
        int listenerId = RedisCalls.call("subscribe to the controls of", queue.name(),
                () -> topic.addListener(String.class, (channel, message) -> onChange.run()));
        return new ChannelSubscription(topic, listenerId);
    }

    /** Reads the {@code paused} and {@code rate} fields of a control hash (null when absent). */
    static QueueControlState parse(@Nullable Object pausedAt, @Nullable Object rate) {
        RateLimit limit = null;
        if (rate != null) {
            String text = rate.toString();
            int slash = text.indexOf('/');
            limit = new RateLimit(Integer.parseInt(text.substring(0, slash)),
                    Duration.ofMillis(Long.parseLong(text.substring(slash + 1))));
        }
        return new QueueControlState(pausedAt == null ? null : Instant.ofEpochMilli(Long.parseLong(pausedAt.toString())),
                limit);
    }

    private QueueKeys keys(Partition queue) {
        return new QueueKeys(prefix, queue);
    }
}
