package dev.delayjobs.testing;

import dev.delayjobs.embeddedredis.RedisServerProcess;

/** The one Redis of this JVM's tests: started on first use, stopped when the JVM exits. */
final class SharedRedisServer {

    private static volatile RedisServerProcess server;

    private SharedRedisServer() {
    }

    static RedisServerProcess get() {
        RedisServerProcess started = server;
        if (started == null) {
            synchronized (SharedRedisServer.class) {
                started = server;
                if (started == null) {
                    started = RedisServerProcess.builder().start();
                    Runtime.getRuntime().addShutdownHook(new Thread(started::close, "embedded-redis-shutdown"));
                    server = started;
                }
            }
        }
        return started;
    }
}
