package dev.delayjobs.autoconfigure;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.LifecycleProcessor;
import org.springframework.context.support.AbstractApplicationContext;

/**
 * A port that accepts connections, counts them and never answers: the Redis of a context that must
 * be built (and its metrics bound) without one. The context's lifecycles start only when a test
 * calls {@code context.start()}, since the starter's start checks Redis.
 */
final class NoRedis implements AutoCloseable {

    private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    private final AtomicInteger connections = new AtomicInteger();
    private final Queue<Socket> sockets = new ConcurrentLinkedQueue<>();

    NoRedis() throws IOException {
        Thread acceptor = new Thread(this::accept, "silent-redis");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** How many connections a client opened to this port. */
    int connections() {
        return connections.get();
    }

    /** A runner whose RedissonClient connects here at its first command, and gives up at once. */
    ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withBean(RedissonClient.class, this::client, bean -> bean.setDestroyMethodName("shutdown"))
                .withBean(AbstractApplicationContext.LIFECYCLE_PROCESSOR_BEAN_NAME, LifecycleProcessor.class,
                        StartupChecksTest.StartWhenAsked::new);
    }

    private RedissonClient client() {
        Config config = new Config();
        config.setLazyInitialization(true);
        config.useSingleServer().setAddress("redis://127.0.0.1:" + server.getLocalPort()).setConnectTimeout(200)
                .setTimeout(200).setRetryAttempts(0);
        return Redisson.create(config);
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                sockets.add(server.accept());
                connections.incrementAndGet();
            }
            catch (IOException closed) {
                return;
            }
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket socket : sockets) {
            socket.close();
        }
    }
}
