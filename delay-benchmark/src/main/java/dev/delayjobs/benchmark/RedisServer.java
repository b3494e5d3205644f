package dev.delayjobs.benchmark;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import redis.embedded.core.ExecutableProvider;

/**
 * The redis-server the benchmark starts for itself on a free loopback port: the one on PATH when
 * there is one, else the Redis 6.2 binary shipped in the embedded-redis jar. No persistence.
 */
final class RedisServer implements AutoCloseable {

    private final Process process;
    private final int port;
    private final String binary;

    private RedisServer(Process process, int port, String binary) {
        this.process = process;
        this.port = port;
        this.binary = binary;
    }

    static RedisServer start() throws IOException {
        File executable = executable();
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        Path dir = Files.createTempDirectory("delay-benchmark-redis");
        Process process = new ProcessBuilder(List.of(executable.getAbsolutePath(), "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--dir", dir.toString(), "--save", "", "--appendonly", "no", "--daemonize", "no"))
                .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("redis-server exited at once; see " + dir.resolve("redis.log"));
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return new RedisServer(process, port, executable.getAbsolutePath());
            }
            catch (IOException notYet) {
                Pace.sleepMs(20);
            }
        }
        process.destroyForcibly();
        throw new IllegalStateException("redis-server did not listen on port " + port + " within 20 s");
    }

    int port() {
        return port;
    }

    String binary() {
        return binary;
    }

    @Override
    public void close() {
        process.destroy();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private static File executable() throws IOException {
        String path = System.getenv("PATH");
        if (path != null) {
            for (String entry : path.split(File.pathSeparator)) {
                File candidate = new File(entry, "redis-server");
                if (candidate.canExecute()) {
                    return candidate;
                }
            }
        }
        return ExecutableProvider.newJarResourceProvider().get();
    }
}
