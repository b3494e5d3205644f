package dev.delayjobs.fault;

import dev.delayjobs.embeddedredis.RedisServerProcess;
import dev.delayjobs.embeddedredis.RespConnection;

/**
 * Sends one command to a Redis on its own short-lived connection, outside any Redisson client:
 * what an operator's {@code redis-cli} would do ({@code CLIENT KILL}, {@code PUBSUB NUMSUB}, ...).
 * Replies: a {@code String} (simple or bulk string, or null), a {@code Long}, or a {@code List}.
 * An error reply throws.
 */
final class RedisCli {

    private RedisCli() {
    }

    static Object call(int port, String... command) {
        try (RespConnection connection = new RespConnection(RedisServerProcess.HOST, port)) {
            return connection.call(command);
        }
    }

    static long callLong(int port, String... command) {
        return (Long) call(port, command);
    }
}
