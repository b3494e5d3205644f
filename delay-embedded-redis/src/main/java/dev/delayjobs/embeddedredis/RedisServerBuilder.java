package dev.delayjobs.embeddedredis;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Settings of a {@link RedisServerProcess} to start; every one is optional. */
public final class RedisServerBuilder {

    private File binary;
    private int port;
    private Path parentDir;
    private final List<String> args = new ArrayList<>();
    private String config;
    private boolean ownSession;

    RedisServerBuilder() {
    }

    /**
     * The {@code redis-server} to run instead of the default (see the class comment).
     *
     * @param binary an executable {@code redis-server}; {@code null} restores the default
     * @return this builder
     */
    public RedisServerBuilder binary(File binary) {
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
    public RedisServerBuilder port(int port) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 0..65535, was " + port);
        }
        this.port = port;
        return this;
    }

    /**
     * Keep the data directory: {@code parent/redis-<port>}, not deleted by {@link RedisServerProcess#close()}. A
     * directory left by an earlier server on the same port is reused with its files.
     *
     * @param parent the directory to create it in (with any missing parents), relative to the
     *     working directory unless absolute; {@code null} restores the temporary directory
     * @return this builder
     */
    public RedisServerBuilder dataDirUnder(Path parent) {
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
    public RedisServerBuilder args(String... args) {
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
    public RedisServerBuilder config(String lines) {
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
    public RedisServerBuilder ownSession() {
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
            ServerCommand command = new ServerCommand(executable, chosenPort, dir, config, args, ownSession);
            try {
                return RedisServerProcess.launch(command, temporary);
            }
            catch (IOException ex) {
                if (temporary) {
                    ServerLaunch.deleteDir(dir);
                }
                throw ex;
            }
        }
        catch (IOException ex) {
            throw new IllegalStateException("Cannot start redis-server: " + ex.getMessage(), ex);
        }
    }
}
