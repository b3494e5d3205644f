package dev.delayjobs.embeddedredis;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

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

    private final ServerCommand command;
    private final boolean temporaryDir;
    private Process process;
    private volatile boolean paused;

    private RedisServerProcess(ServerCommand command, boolean temporaryDir) {
        this.command = command;
        this.temporaryDir = temporaryDir;
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
        return ServerBinary.redisServerOnPath();
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
        return command.port();
    }

    /**
     * The address of the server as {@code host:port}, the form of
     * {@code spring.data.redis.cluster.nodes} and {@code spring.data.redis.sentinel.nodes}.
     *
     * @return {@code 127.0.0.1:<port>}
     */
    public String address() {
        return HOST + ":" + command.port();
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
        return command.executable().getAbsolutePath();
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
        return command.dir();
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
            throw new IllegalStateException("redis-server on port " + command.port() + " is not running");
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
        ServerLaunch.signal(pid(), "STOP");
        paused = true;
    }

    /**
     * Lets a paused server run again (SIGCONT).
     *
     * @throws IllegalStateException when the server is not running or the signal cannot be sent
     */
    public void resume() {
        ServerLaunch.signal(pid(), "CONT");
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
            ServerLaunch.awaitExit(process);
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
            throw new IllegalStateException("redis-server on port " + command.port() + " is running");
        }
        try {
            process = ServerLaunch.start(command);
        }
        catch (IOException ex) {
            throw new IllegalStateException("cannot restart redis-server on port " + command.port() + ": " + ex.getMessage(), ex);
        }
    }

    /** Stops the server (SIGTERM, SIGKILL when it lingers) and deletes a temporary data directory. Idempotent. */
    @Override
    public synchronized void close() {
        if (process != null) {
            ServerLaunch.stop(process);
            process = null;
        }
        if (temporaryDir) {
            ServerLaunch.deleteDir(command.dir());
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
            return ServerBinary.defaultExecutable();
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
        return ServerBinary.describe(binary);
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
                File executable = binary != null ? binary : ServerBinary.defaultExecutable();
                int chosenPort = ServerLaunch.port(port);
                boolean temporary = parentDir == null;
                Path dir = temporary ? Files.createTempDirectory("delay-redis-")
                        : Files.createDirectories(parentDir.toAbsolutePath().resolve("redis-" + chosenPort));
                RedisServerProcess server = new RedisServerProcess(
                        new ServerCommand(executable, chosenPort, dir, config, args, ownSession), temporary);
                try {
                    server.process = ServerLaunch.start(server.command);
                }
                catch (IOException ex) {
                    if (temporary) {
                        ServerLaunch.deleteDir(dir);
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
