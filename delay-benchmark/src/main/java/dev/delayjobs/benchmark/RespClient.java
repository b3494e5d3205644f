package dev.delayjobs.benchmark;

import java.time.Duration;

import dev.delayjobs.embeddedredis.RespConnection;

/**
 * The connection used only to observe the server (INFO, SLOWLOG, LATENCY, CONFIG, FLUSHALL). It is
 * kept apart from Redisson so that measuring does not show up in the counts of the engines under
 * test, and it waits while a long script keeps the server BUSY.
 */
final class RespClient implements AutoCloseable {

    private final RespConnection connection;

    RespClient(String host, int port) {
        // no read timeout: a FLUSHALL of a million jobs takes as long as it takes
        this.connection = new RespConnection(host, port, Duration.ZERO);
    }

    /** Sends one command and reads its reply; waits while a long script keeps the server BUSY. */
    synchronized Object call(String... args) {
        for (int attempt = 0; ; attempt++) {
            try {
                return connection.call(args);
            }
            catch (RespConnection.ServerError ex) {
                if (!ex.getMessage().startsWith("BUSY") || attempt > 3000) {
                    throw ex;
                }
                sleep(100);
            }
        }
    }

    String text(String... args) {
        Object reply = call(args);
        return reply == null ? null : reply.toString();
    }

    @Override
    public void close() {
        connection.close();
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", ex);
        }
    }
}
