package dev.delayjobs.redis;

import java.util.List;

import org.redisson.api.RScript;
import org.redisson.api.RScript.Mode;
import org.redisson.api.RScript.ReturnType;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * The version of the data format (key names, record layout, what each structure holds) that the
 * jobs under a key prefix are written in. Recorded in Redis by the first application that starts
 * under the prefix and checked by every later one, so that an application never misreads jobs that a
 * newer release wrote (jobs wait for weeks: a rolling upgrade or a rollback always meets them).
 *
 * <p>A release that changes the format raises {@link #CURRENT}, migrates the older versions' data
 * when it starts, and keeps the previous versions' fixtures passing (docs/versioning.md).
 */
public final class DataFormat {

    /** The data format this version of the starter writes and reads. */
    public static final int CURRENT = 1;

    private static final LuaScript DATA_FORMAT = LuaScript.load(Script.DATA_FORMAT);

    private final RScript script;
    private final String prefix;

    public DataFormat(RedissonClient redisson, String prefix) {
        this.script = redisson.getScript(StringCodec.INSTANCE);
        this.prefix = prefix;
    }

    /** The version recorded under the prefix; records {@link #CURRENT} when none is (one round trip). */
    public int recordedOrCurrent() {
        Long recorded = RedisCalls.call("read the data format of", prefix, () -> DATA_FORMAT.run(script, Mode.READ_WRITE,
                ReturnType.LONG, List.of(QueueKeys.dataFormat(prefix)), String.valueOf(CURRENT)));
        return recorded.intValue();
    }
}
