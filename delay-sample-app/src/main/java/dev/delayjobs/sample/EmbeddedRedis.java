package dev.delayjobs.sample;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import redis.embedded.core.ExecutableProvider;

/**
 * A {@code redis-server} child process on a loopback port, without persistence, its working
 * directory a fresh temporary directory that is deleted when the server stops.
 *
 * <p>The binary is the one shipped inside the embedded-redis jar (Redis 6.2 on Linux and macOS), so
 * nothing needs installing; where the jar has none that fits (Windows ships 5.0, which lacks
 * {@code BLMOVE}), a {@code redis-server} on the PATH is used.
 *
 * <p>The owner stops it with {@link #stop()}; a JVM killed with SIGKILL leaves it running (it then
 * holds no data worth keeping: nothing is persisted).
 */
final class EmbeddedRedis {

    static final String HOST = "127.0.0.1";

    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

    private final Process process;
    private final int port;
    private final Path dir;
    private final String binary;

    private EmbeddedRedis(Process process, int port, Path dir, String binary) {
        this.process = process;
        this.port = port;
        this.dir = dir;
        this.binary = binary;
    }

    /**
     * Starts a server and returns once it accepts connections.
     * @param requestedPort the port to listen on, or 0 for a free one
     * @throws IllegalStateException when the server cannot be started, with the reason
     */
    static EmbeddedRedis start(int requestedPort) {
        try {
            File executable = executable();
            int port = requestedPort > 0 ? requirePortFree(requestedPort) : freePort();
            Path dir = Files.createTempDirectory("delay-sample-redis-");
            Path log = dir.resolve("redis.log");
            List<String> command = new ArrayList<>();
            // In its own session, a terminal's Ctrl-C reaches the JVM but not redis-server: the
            // application shuts down against a live Redis, and the shutdown handler stops it after.
            // setsid(1) execs in place (the child is no group leader), so the Process is redis-server.
            findOnPath("setsid").ifPresent(setsid -> command.add(setsid.getAbsolutePath()));
            command.addAll(List.of(executable.getAbsolutePath(), "--port", Integer.toString(port),
                    "--bind", HOST, "--dir", dir.toString(), "--save", "", "--appendonly", "no",
                    "--daemonize", "no"));
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile())
                    .start();
            EmbeddedRedis redis = new EmbeddedRedis(process, port, dir, executable.getAbsolutePath());
            redis.awaitListening();
            return redis;
        }
        catch (IOException ex) {
            throw new IllegalStateException("Cannot start the embedded Redis: " + ex.getMessage(), ex);
        }
    }

    String host() {
        return HOST;
    }

    int port() {
        return port;
    }

    Path dir() {
        return dir;
    }

    String binary() {
        return binary;
    }

    /** Stops the server (SIGTERM, then SIGKILL after a while) and deletes its directory. Idempotent. */
    synchronized void stop() {
        if (process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    process.destroyForcibly().waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                }
            }
            catch (InterruptedException ex) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        deleteDir();
    }

    private void awaitListening() {
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                String output = logTail();
                deleteDir();
                throw new IllegalStateException("redis-server exited at once (code " + process.exitValue()
                        + ") on port " + port + ": " + output);
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(HOST, port), 200);
                return;
            }
            catch (IOException notYet) {
                pause();
            }
        }
        stop();
        throw new IllegalStateException("redis-server did not listen on " + HOST + ":" + port + " within "
                + STARTUP_TIMEOUT.toSeconds() + "s");
    }

    private String logTail() {
        try {
            List<String> lines = Files.readAllLines(dir.resolve("redis.log"), StandardCharsets.UTF_8);
            return String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
        }
        catch (IOException ex) {
            return "(no output)";
        }
    }

    private void deleteDir() {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
        catch (IOException | UncheckedIOException ex) {
            // a temporary directory left behind is harmless
        }
    }

    private static void pause() {
        try {
            Thread.sleep(25);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for redis-server", ex);
        }
    }

    private static File executable() throws IOException {
        boolean windows = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");
        if (!windows) {
            try {
                return ExecutableProvider.newJarResourceProvider().get();
            }
            catch (RuntimeException noBinaryForThisPlatform) {
                // fall back to the PATH
            }
        }
        return findOnPath(windows ? "redis-server.exe" : "redis-server").orElseThrow(() -> new IOException("no redis-server binary for " + System.getProperty("os.name") + "/"
                + System.getProperty("os.arch") + " in the embedded-redis jar nor on the PATH; install Redis 6.2+ "
                + "or set spring.data.redis.host/port to a running one"));
    }

    private static Optional<File> findOnPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String entry : path.split(File.pathSeparator)) {
            File candidate = new File(entry, name);
            if (candidate.isFile() && candidate.canExecute()) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    private static int requirePortFree(int port) throws IOException {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName(HOST))) {
            return port;
        }
        catch (IOException ex) {
            throw new IOException("port " + port + " (sample.embedded-redis.port) is in use", ex);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
            return socket.getLocalPort();
        }
    }
}
