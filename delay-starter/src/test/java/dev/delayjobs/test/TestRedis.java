package dev.delayjobs.test;

import java.util.UUID;

import dev.delayjobs.embeddedredis.RedisServerProcess;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * The Redis the tests of this JVM share: a {@link RedisServerProcess} of the server the run is on
 * (the bundled Redis 6.2, or the one {@code -Ddelay.test.redis-server} names: see
 * {@link ServerUnderTest}), like every other server the tests start. Started once, stopped when the
 * JVM exits. Tests isolate themselves with a fresh key prefix ({@link #uniquePrefix()}), not a
 * fresh server.
 */
public final class TestRedis {

    private static final String HOST_PORT = startOnce();
    private static RedissonClient shared;

    private TestRedis() {
    }

    /** {@code host:port} of the shared Redis. */
    public static String address() {
        return HOST_PORT;
    }

    public static String host() {
        return HOST_PORT.substring(0, HOST_PORT.lastIndexOf(':'));
    }

    public static int port() {
        return Integer.parseInt(HOST_PORT.substring(HOST_PORT.lastIndexOf(':') + 1));
    }

    /** A key prefix no other test uses. */
    public static String uniquePrefix() {
        return "t" + UUID.randomUUID().toString().substring(0, 8);
    }

    /**
     * One plain Redisson client on the shared Redis for every test of this JVM that looks at or
     * tampers with the data; shut down when the JVM exits.
     */
    public static synchronized RedissonClient sharedClient() {
        if (shared == null) {
            shared = newClient();
            Runtime.getRuntime().addShutdownHook(new Thread(shared::shutdown));
        }
        return shared;
    }

    /** A plain Redisson client on the shared Redis of the test's own (it shuts it down). */
    public static RedissonClient newClient() {
        Config config = new Config();
        config.useSingleServer().setAddress("redis://" + HOST_PORT);
        return Redisson.create(config);
    }

    private static String startOnce() {
        RedisServerProcess server = RedisServerProcess.start();
        Runtime.getRuntime().addShutdownHook(new Thread(server::close));
        return server.address();
    }
}
