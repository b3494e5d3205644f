package dev.delayjobs.embeddedredis;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line that starts one server: the binary, its configuration file when there is one,
 * the built-in arguments (port, loopback bind, data directory, persistence off, foreground), then
 * the caller's, which override them. The same line starts it again after a kill.
 */
record ServerCommand(File executable, int port, Path dir, String config, List<String> extraArgs, boolean ownSession) {

    ServerCommand {
        extraArgs = List.copyOf(extraArgs);
    }

    /** The line to run; writes {@code redis.conf} into the data directory first when there is a config and no file yet. */
    List<String> line() throws IOException {
        List<String> command = new ArrayList<>();
        if (ownSession) {
            // In its own session a terminal's Ctrl-C reaches the JVM but not redis-server, so the
            // application shuts down against a live Redis. setsid(1) execs in place: the Process is redis-server.
            ServerBinary.onPath("setsid").ifPresent(setsid -> command.add(setsid.getAbsolutePath()));
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
        command.addAll(List.of("--port", Integer.toString(port), "--bind", RedisServerProcess.HOST,
                "--dir", dir.toString(), "--save", "", "--appendonly", "no", "--daemonize", "no"));
        command.addAll(extraArgs);
        return command;
    }
}
