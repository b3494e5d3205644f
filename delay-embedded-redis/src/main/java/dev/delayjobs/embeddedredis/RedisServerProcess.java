package dev.delayjobs.embeddedredis;

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
 * A real {@code redis-server} child process on a loopback port, started by {@link Builder#start()}
 * and returned once it accepts connections.
 *
 * <p>The binary, unless {@link Builder#binary(File)} names one: the one named by the system property
 * {@value #BINARY_PROPERTY} or, without it, the environment variable {@value #BINARY_ENV} (a path,
 * or a command looked up on the PATH such as {@code valkey-server}); else the one shipped inside the
 * embedded-redis jar (Redis 6.2 on Linux and macOS, the floor the starter supports, so every
 * machine runs the same server), else a {@code redis-server} on the PATH (Windows, whose bundled
 * 5.0 lacks {@code BLMOVE}). {@link #describe(File)} names a binary's server and version.
 *
 * <p>Persistence is off unless the extra arguments turn it on. The data directory is a fresh
 * temporary one, deleted by {@link #close()}, unless {@link Builder#dataDirUnder(Path)} asks for a
 * kept one (fault tests read its {@code redis.log} and restart the server on its AOF).
 */
public final class RedisServerProcess implements AutoCloseable {

    /** System property naming the {@code redis-server} to run instead of the bundled one. */
    public static final String BINARY_PROPERTY = "delay.test.redis-server";

    /** Environment variable naming the server to run when {@value #BINARY_PROPERTY} is not set. */
    public static final String BINARY_ENV = "DELAY_TEST_REDIS_SERVER";

    /** The address the server binds to. */
    public static final String HOST = "127.0.0.1";

    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

    private final File executable;
    private final int port;
    private final Path dir;
    private final boolean temporaryDir;
    private final List<String> extraArgs;
    private final String config;
    private final boolean ownSession;
    private Process process;
    private volatile boolean paused;

    private RedisServerProcess(Builder builder, File executable, int port, Path dir, boolean temporaryDir) {
        this.executable = executable;
        this.port = port;
        this.dir = dir;
        this.temporaryDir = temporaryDir;
        this.extraArgs = List.copyOf(builder.args);
        this.config = builder.config;
        this.ownSession = builder.ownSession;
    }

    /**
     * A server on a free port with a kept data directory under {@code target/redis}: what tests use.
     * Shorthand for {@code builder().dataDirUnder(Path.of("target", "redis")).args(extraArgs).start()}.
     *
     * @param extraArgs {@code redis-server} arguments, e.g. {@code "--appendonly", "yes"}; they come
     *     after the built-in ones ({@code --port}, {@code --bind}, {@code --dir}, {@code --save ""},
     *     {@code --appendonly no}, {@code --daemonize no}), so they override them; none for the defaults
     * @return the running server; its data directory {@code target/redis/redis-<port>}, relative to
     *     the working directory, stays after {@link #close()}
     * @throws IllegalStateException when the server cannot be started: no binary found, or it exits
     *     at once or does not listen within 20 seconds (the message gives the end of its log)
     */
    public static RedisServerProcess start(String... extraArgs) {
        return builder().dataDirUnder(Path.of("target", "redis")).args(extraArgs).start();
    }

    /**
     * Starts describing a server. Left alone, the builder starts the default binary on a free port
     * with a temporary data directory.
     *
     * @return a new builder; {@link Builder#start()} starts the server
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The {@code redis-server} on the PATH, if there is one.
     *
     * @return the first executable file named {@code redis-server} ({@code redis-server.exe} on
     *     Windows) in the directories of the {@code PATH} environment variable, in their order, or
     *     empty when there is none
     */
    public static Optional<File> onPath() {
        boolean windows = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");
        return findOnPath(windows ? "redis-server.exe" : "redis-server");
    }

    /**
     * The host to connect to.
     *
     * @return {@value #HOST}, the loopback address the server binds to
     */
    public String host() {
        return HOST;
    }

    /**
     * The port the server listens on.
     *
     * @return the port, chosen when the server was started; the same after {@link #restart()}
     */
    public int port() {
        return port;
    }

    /**
     * The address of the server as {@code host:port}, the form of
     * {@code spring.data.redis.cluster.nodes} and {@code spring.data.redis.sentinel.nodes}.
     *
     * @return {@code 127.0.0.1:<port>}
     */
    public String address() {
        return HOST + ":" + port;
    }

    /**
     * The URL of the server, for {@code spring.data.redis.url} or a Redisson {@code Config}.
     *
     * @return {@code redis://127.0.0.1:<port>}
     */
    public String url() {
        return "redis://" + address();
    }

    /**
     * The executable this server runs.
     *
     * @return the absolute path of the {@code redis-server} binary
     */
    public String binary() {
        return executable.getAbsolutePath();
    }

    /**
     * The data directory, where the server writes {@code redis.log} (its output), its RDB and AOF
     * files when persistence is on, and {@code redis.conf} when {@link Builder#config(String)} gave
     * one.
     *
     * @return the directory: {@code <parent>/redis-<port>} for {@link Builder#dataDirUnder(Path)},
     *     else a temporary one that {@link #close()} deletes
     */
    public Path dir() {
        return dir;
    }

    /**
     * The process id of the running server.
     *
     * @return the operating system's id of the {@code redis-server} process (a new one after
     *     {@link #restart()})
     * @throws IllegalStateException when the server is not running: killed and not restarted, or
     *     closed
     */
    public synchronized long pid() {
        if (process == null) {
            throw new IllegalStateException("redis-server on port " + port + " is not running");
        }
        return process.pid();
    }

    /**
     * Freezes the server (SIGSTOP): connections stay open, nothing is answered until {@link #resume()}.
     * Sends the signal with the {@code kill} command, so it works where there is one (Linux, macOS).
     *
     * @throws IllegalStateException when the server is not running or the signal cannot be sent
     */
    public void pause() {
        signal("STOP");
        paused = true;
    }

    /**
     * Lets a paused server run again (SIGCONT).
     *
     * @throws IllegalStateException when the server is not running or the signal cannot be sent
     */
    public void resume() {
        signal("CONT");
        paused = false;
    }

    /**
     * Whether the process runs and is not paused: it answers.
     *
     * @return {@code true} unless the server was killed, closed, exited or is paused
     */
    public synchronized boolean isRunning() {
        return process != null && process.isAlive() && !paused;
    }

    /** Kills the server at once (SIGKILL): no final save. {@link #restart()} starts it again. */
    public synchronized void kill() {
        if (process != null) {
            process.destroyForcibly();
            awaitExit(process);
            process = null;
        }
    }

    /**
     * Starts the server again after {@link #kill()}, on the same port and data directory, with the
     * same arguments (a server with {@code --appendonly yes} reloads its AOF). Returns once it
     * accepts connections.
     *
     * @throws IllegalStateException when the server is still running, or cannot be started again
     *     (its port taken meanwhile, it exits at once or does not listen within 20 seconds)
     */
    public synchronized void restart() {
        if (process != null) {
            throw new IllegalStateException("redis-server on port " + port + " is running");
        }
        try {
            startProcess();
        }
        catch (IOException ex) {
            throw new IllegalStateException("cannot restart redis-server on port " + port + ": " + ex.getMessage(), ex);
        }
    }

    /** Stops the server (SIGTERM, SIGKILL when it lingers) and deletes a temporary data directory. Idempotent. */
    @Override
    public synchronized void close() {
        if (process != null) {
            process.destroy();
            if (!awaitExit(process)) {
                process.destroyForcibly();
                awaitExit(process);
            }
            process = null;
        }
        if (temporaryDir) {
            deleteDir();
        }
    }

    private void startProcess() throws IOException {
        List<String> command = new ArrayList<>();
        if (ownSession) {
            // In its own session a terminal's Ctrl-C reaches the JVM but not redis-server, so the
            // application shuts down against a live Redis. setsid(1) execs in place: the Process is redis-server.
            findOnPath("setsid").ifPresent(setsid -> command.add(setsid.getAbsolutePath()));
        }
        command.add(executable.getAbsolutePath());
        if (config != null) {
            // a sentinel rewrites its file: written once, kept across restarts
            Path file = dir.resolve("redis.conf");
            if (!Files.exists(file)) {
                Files.writeString(file, config, StandardCharsets.UTF_8);
            }
            command.add(file.toString());
        }
        command.addAll(List.of("--port", Integer.toString(port), "--bind", HOST,
                "--dir", dir.toString(), "--save", "", "--appendonly", "no", "--daemonize", "no"));
        command.addAll(extraArgs);
        process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("redis.log").toFile())).start();
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                String tail = logTail();
                process = null;
                throw new IOException("redis-server exited at once on port " + port + ": " + tail);
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(HOST, port), 200);
                return;
            }
            catch (IOException notYet) {
                sleepBriefly();
            }
        }
        process.destroyForcibly();
        awaitExit(process);
        process = null;
        throw new IOException("redis-server did not listen on " + address() + " within " + STARTUP_TIMEOUT.toSeconds() + " s");
    }

    private void signal(String name) {
        long pid = pid();
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

    private static boolean awaitExit(Process process) {
        try {
            return process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            return false;
        }
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

    private static void sleepBriefly() {
        try {
            Thread.sleep(20);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for redis-server", ex);
        }
    }

    /**
     * The binary a server started without {@link Builder#binary(File)} runs (see the class comment).
     *
     * @return the executable: the one {@value #BINARY_PROPERTY} or {@value #BINARY_ENV} names, else
     *     the bundled one for this platform, else the {@code redis-server} on the PATH
     * @throws IllegalStateException when the one named is not there, or there is none at all
     */
    public static File defaultBinary() {
        try {
            return defaultExecutable();
        }
        catch (IOException ex) {
            throw new IllegalStateException(ex.getMessage(), ex);
        }
    }

    /**
     * The server and version of a binary, from its {@code --version}: {@code "Redis 7.0.15"},
     * {@code "Valkey 8.0.1"}.
     *
     * @param binary a {@code redis-server} (or compatible server) executable; it is run once with
     *     {@code --version}
     * @return the server's name and version, as its {@code --version} output names them
     * @throws IllegalStateException when it does not run or says no version
     */
    public static String describe(File binary) {
        String output;
        try {
            Process process = new ProcessBuilder(binary.getAbsolutePath(), "--version").redirectErrorStream(true).start();
            output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
        catch (IOException ex) {
            throw new IllegalStateException("cannot run " + binary + " --version: " + ex.getMessage(), ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + binary + " --version", ex);
        }
        // "Redis server v=7.0.15 sha=..." or "Valkey server v=8.0.1 sha=..."
        int server = output.indexOf(" server v=");
        if (server <= 0) {
            throw new IllegalStateException(binary + " --version said no version: " + output);
        }
        String version = output.substring(server + " server v=".length()).split("\\s", 2)[0];
        return output.substring(0, server) + " " + version;
    }

    private static File defaultExecutable() throws IOException {
        String configured = System.getProperty(BINARY_PROPERTY);
        String source = "-D" + BINARY_PROPERTY;
        if (configured == null || configured.isBlank()) {
            configured = System.getenv(BINARY_ENV);
            source = BINARY_ENV;
        }
        if (configured != null && !configured.isBlank()) {
            return configured(configured.trim(), source);
        }
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows")) {
            try {
                return ExecutableProvider.newJarResourceProvider().get();
            }
            catch (RuntimeException noBinaryForThisPlatform) {
                // fall back to the PATH
            }
        }
        return onPath().orElseThrow(() -> new IOException("no redis-server binary for "
                + System.getProperty("os.name") + "/" + System.getProperty("os.arch")
                + " in the embedded-redis jar nor on the PATH; install Redis 6.2+ or set -D" + BINARY_PROPERTY));
    }

    /** A path, or a bare command name (no separator) looked up on the PATH. */
    private static File configured(String value, String source) throws IOException {
        boolean bareName = !value.contains("/") && !value.contains(File.separator);
        File file = bareName ? findOnPath(value).orElse(null) : new File(value);
        if (file == null) {
            throw new IOException(source + "=" + value + ": no such command on the PATH");
        }
        if (!file.isFile() || !file.canExecute()) {
            throw new IOException(source + "=" + value + " is not an executable file");
        }
        return file;
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

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
            return socket.getLocalPort();
        }
    }

    private static int requireFree(int port) throws IOException {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName(HOST))) {
            return port;
        }
        catch (IOException ex) {
            throw new IOException("port " + port + " is in use", ex);
        }
    }

    /** Settings of a server to start; every one is optional. */
    public static final class Builder {

        private File binary;
        private int port;
        private Path parentDir;
        private final List<String> args = new ArrayList<>();
        private String config;
        private boolean ownSession;

        private Builder() {
        }

        /**
         * The {@code redis-server} to run instead of the default (see the class comment).
         *
         * @param binary an executable {@code redis-server}; {@code null} restores the default
         * @return this builder
         */
        public Builder binary(File binary) {
            this.binary = binary;
            return this;
        }

        /**
         * The port to listen on; 0 (the default) picks a free one.
         *
         * @param port 0 to 65535; {@link #start()} fails when a port other than 0 is in use
         * @return this builder
         * @throws IllegalArgumentException when {@code port} is outside 0 to 65535
         */
        public Builder port(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be 0..65535, was " + port);
            }
            this.port = port;
            return this;
        }

        /**
         * Keep the data directory: {@code parent/redis-<port>}, not deleted by {@link #close()}. A
         * directory left by an earlier server on the same port is reused with its files.
         *
         * @param parent the directory to create it in (with any missing parents), relative to the
         *     working directory unless absolute; {@code null} restores the temporary directory
         * @return this builder
         */
        public Builder dataDirUnder(Path parent) {
            this.parentDir = parent;
            return this;
        }

        /**
         * Extra {@code redis-server} arguments, e.g. {@code "--appendonly", "yes"}.
         *
         * @param args options and their values as separate strings, added after those of earlier
         *     calls; they come after the built-in ones ({@code --port}, {@code --bind}, {@code --dir},
         *     {@code --save ""}, {@code --appendonly no}, {@code --daemonize no}), so they override them
         * @return this builder
         */
        public Builder args(String... args) {
            this.args.addAll(List.of(args));
            return this;
        }

        /**
         * A configuration file with these lines, written into the data directory and passed first
         * (a sentinel needs one it can rewrite); {@code port} and {@code bind} come from here anyway.
         *
         * @param lines the file's content, one directive a line ({@code "sentinel monitor ...\n"});
         *     written only when the data directory has no {@code redis.conf} yet, so what the server
         *     rewrote into it survives {@link RedisServerProcess#restart()}
         * @return this builder
         */
        public Builder config(String lines) {
            this.config = lines;
            return this;
        }

        /**
         * Run the server in a session of its own, so a terminal's Ctrl-C does not reach it (the
         * application can then shut down against a live Redis). Needs {@code setsid} on the PATH;
         * without it the server runs in the JVM's session.
         *
         * @return this builder
         */
        public Builder ownSession() {
            this.ownSession = true;
            return this;
        }

        /**
         * Starts the server and returns once it accepts connections.
         *
         * @return the running server; {@link RedisServerProcess#close()} stops it
         * @throws IllegalStateException when it cannot be started, with the reason: no binary
         *     found, the port in use, the server exits at once (with the end of its log) or does
         *     not listen within 20 seconds
         */
        public RedisServerProcess start() {
            try {
                File executable = binary != null ? binary : defaultExecutable();
                int chosenPort = port > 0 ? requireFree(port) : freePort();
                boolean temporary = parentDir == null;
                Path dir = temporary ? Files.createTempDirectory("delay-redis-")
                        : Files.createDirectories(parentDir.toAbsolutePath().resolve("redis-" + chosenPort));
                RedisServerProcess server = new RedisServerProcess(this, executable, chosenPort, dir, temporary);
                try {
                    server.startProcess();
                }
                catch (IOException ex) {
                    if (temporary) {
                        server.deleteDir();
                    }
                    throw ex;
                }
                return server;
            }
            catch (IOException ex) {
                throw new IllegalStateException("Cannot start redis-server: " + ex.getMessage(), ex);
            }
        }
    }
}
