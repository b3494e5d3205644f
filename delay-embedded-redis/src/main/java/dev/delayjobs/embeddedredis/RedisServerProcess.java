package dev.delayjobs.embeddedredis;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A real {@code redis-server} child process on a loopback port, started by {@link RedisServerBuilder#start()}
 * and returned once it accepts connections.
 *
 * <p>The binary, unless {@link RedisServerBuilder#binary(File)} names one: the one named by the system property
 * {@value #BINARY_PROPERTY} or, without it, the environment variable {@value #BINARY_ENV} (a path,
 * or a command looked up on the PATH such as {@code valkey-server}); else the one shipped inside the
 * embedded-redis jar (Redis 6.2 on Linux and macOS, the floor the starter supports, so every
 * machine runs the same server), else a {@code redis-server} on the PATH (Windows, whose bundled
 * 5.0 lacks {@code BLMOVE}). {@link #describe(File)} names a binary's server and version.
 *
 * <p>Persistence is off unless the extra arguments turn it on. The data directory is a fresh
 * temporary one, deleted by {@link #close()}, unless {@link RedisServerBuilder#dataDirUnder(Path)} asks for a
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

    /** Starts the server {@code command} describes and returns once it accepts connections. */
    static RedisServerProcess launch(ServerCommand command, boolean temporaryDir) throws IOException {
        RedisServerProcess server = new RedisServerProcess(command, temporaryDir);
        server.process = ServerLaunch.start(command);
        return server;
    }

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
     * @return a new builder; {@link RedisServerBuilder#start()} starts the server
     */
    public static RedisServerBuilder builder() {
        return new RedisServerBuilder();
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
     * files when persistence is on, and {@code redis.conf} when {@link RedisServerBuilder#config(String)} gave
     * one.
     *
     * @return the directory: {@code <parent>/redis-<port>} for {@link RedisServerBuilder#dataDirUnder(Path)},
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
     * The binary a server started without {@link RedisServerBuilder#binary(File)} runs (see the class comment).
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
}
