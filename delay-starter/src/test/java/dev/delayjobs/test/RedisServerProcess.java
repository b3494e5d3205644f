package dev.delayjobs.test;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import redis.embedded.core.ExecutableProvider;

/**
 * A real {@code redis-server} process on a free loopback port, with its data under
 * {@code target/}: the binary shipped by embedded-redis, or the one named by
 * {@code -Ddelay.test.redis-server}.
 * Fault tests stop, restart, pause and resume it.
 */
public final class RedisServerProcess implements AutoCloseable {

    private final File executable;
    private final int port;
    private final Path dir;
    private final List<String> extraArgs;
    private Process process;

    private RedisServerProcess(File executable, int port, Path dir, List<String> extraArgs) {
        this.executable = executable;
        this.port = port;
        this.dir = dir;
        this.extraArgs = extraArgs;
    }

    /** Starts a server with persistence off, plus {@code extraArgs} ("--appendonly", "yes", ...). */
    public static RedisServerProcess start(String... extraArgs) {
        try {
            int port = freePort();
            Path dir = Path.of("target", "redis", "redis-" + port).toAbsolutePath();
            Files.createDirectories(dir);
            RedisServerProcess server = new RedisServerProcess(executable(), port, dir, List.of(extraArgs));
            server.startProcess();
            return server;
        }
        catch (IOException ex) {
            throw new IllegalStateException("cannot start redis-server", ex);
        }
    }

    public int port() {
        return port;
    }

    public String url() {
        return "redis://127.0.0.1:" + port;
    }

    public String binary() {
        return executable.getAbsolutePath();
    }

    /** Starts the server again after {@link #kill()} or {@link #close()}, on the same port and data dir. */
    public void restart() {
        try {
            startProcess();
        }
        catch (IOException ex) {
            throw new IllegalStateException("cannot restart redis-server", ex);
        }
    }

    /** The process id of the running server. */
    public long pid() {
        if (process == null) {
            throw new IllegalStateException("redis-server on port " + port + " is not running");
        }
        return process.pid();
    }

    /** Freezes the server (SIGSTOP): connections stay open, nothing is answered until {@link #resume()}. */
    public void pause() {
        signal("STOP");
    }

    /** Lets a paused server run again (SIGCONT). */
    public void resume() {
        signal("CONT");
    }

    private void signal(String name) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid())).inheritIO().start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + name + " " + pid() + " failed");
            }
        }
        catch (IOException ex) {
            throw new IllegalStateException("cannot send SIG" + name + " to redis-server", ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sending SIG" + name, ex);
        }
    }

    /** Kills the server at once (SIGKILL): no final save. */
    public void kill() {
        if (process != null) {
            process.destroyForcibly();
            waitFor();
        }
    }

    @Override
    public void close() {
        if (process != null) {
            process.destroy();
            waitFor();
        }
    }

    private void waitFor() {
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        process = null;
    }

    private void startProcess() throws IOException {
        List<String> command = new ArrayList<>(List.of(executable.getAbsolutePath(), "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--dir", dir.toString(), "--save", "", "--appendonly", "no", "--daemonize", "no"));
        command.addAll(extraArgs);
        process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis.log").toFile()).start();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("redis-server exited at once; see " + dir.resolve("redis.log"));
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            }
            catch (IOException notYet) {
                sleepBriefly();
            }
        }
        throw new IllegalStateException("redis-server did not listen on port " + port + " within 20s");
    }

    private static void sleepBriefly() {
        try {
            Thread.sleep(20);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The binary shipped by embedded-redis (Redis 6.2, the floor this starter supports), so that
     * every machine tests the same server; {@code -Ddelay.test.redis-server=/path/to/redis-server}
     * tests another one (for example a Redis 7 from the OS packages).
     */
    private static File executable() throws IOException {
        String configured = System.getProperty("delay.test.redis-server");
        if (configured != null && !configured.isBlank()) {
            File file = new File(configured);
            if (!file.canExecute()) {
                throw new IllegalStateException("delay.test.redis-server=" + configured + " is not an executable file");
            }
            return file;
        }
        return ExecutableProvider.newJarResourceProvider().get();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        }
    }
}
