package dev.delayjobs.embeddedredis;

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
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The operating-system side of a server's life: choosing its port, starting it and waiting until it
 * listens, signalling it, waiting for it to exit, and removing a temporary data directory.
 */
final class ServerLaunch {

    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

    private ServerLaunch() {
    }

    /**
     * Runs the command with its output appended to {@code redis.log} in the data directory, and
     * returns once the port accepts connections.
     *
     * @throws IOException when it exits at once (with the end of its log) or does not listen in time
     */
    static Process start(ServerCommand command) throws IOException {
        Path dir = command.dir();
        Process process = new ProcessBuilder(command.line()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("redis.log").toFile())).start();
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("redis-server exited at once on port " + command.port() + ": " + logTail(dir));
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(RedisServerProcess.HOST, command.port()), 200);
                return process;
            }
            catch (IOException notYet) {
                sleepBriefly();
            }
        }
        process.destroyForcibly();
        awaitExit(process);
        throw new IOException("redis-server did not listen on " + RedisServerProcess.HOST + ":" + command.port()
                + " within " + STARTUP_TIMEOUT.toSeconds() + " s");
    }

    /** SIGTERM, then SIGKILL when the process lingers. */
    static void stop(Process process) {
        process.destroy();
        if (!awaitExit(process)) {
            process.destroyForcibly();
            awaitExit(process);
        }
    }

    /** Whether the process exited within the stop timeout. */
    static boolean awaitExit(Process process) {
        try {
            return process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Sends {@code SIG<name>} with the {@code kill} command (Linux, macOS). */
    static void signal(long pid, String name) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + name + " " + pid + " failed");
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

    /** The port asked for when it is free, else a free one when 0 was asked for. */
    static int port(int requested) throws IOException {
        try (ServerSocket socket = new ServerSocket(requested, 1, InetAddress.getByName(RedisServerProcess.HOST))) {
            return socket.getLocalPort();
        }
        catch (IOException ex) {
            if (requested == 0) {
                throw ex;
            }
            throw new IOException("port " + requested + " is in use", ex);
        }
    }

    static void deleteDir(Path dir) {
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

    private static String logTail(Path dir) {
        try {
            List<String> lines = Files.readAllLines(dir.resolve("redis.log"), StandardCharsets.UTF_8);
            return String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
        }
        catch (IOException ex) {
            return "(no output)";
        }
    }

    private static void sleepBriefly() {
        try {
            Thread.sleep(20);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for redis-server", ex);
        }
    }
}
