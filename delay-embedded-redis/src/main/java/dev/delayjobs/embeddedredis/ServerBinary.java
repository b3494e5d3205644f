package dev.delayjobs.embeddedredis;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import redis.embedded.core.ExecutableProvider;

/**
 * Finds the {@code redis-server} binary to run and names its server and version: the lookup that
 * {@link RedisServerProcess}'s class comment describes.
 */
final class ServerBinary {

    private ServerBinary() {
    }

    /** The one {@link RedisServerProcess#BINARY_PROPERTY} or its variable names, else the bundled one, else the PATH's. */
    static File defaultExecutable() throws IOException {
        String configured = System.getProperty(RedisServerProcess.BINARY_PROPERTY);
        String source = "-D" + RedisServerProcess.BINARY_PROPERTY;
        if (configured == null || configured.isBlank()) {
            configured = System.getenv(RedisServerProcess.BINARY_ENV);
            source = RedisServerProcess.BINARY_ENV;
        }
        if (configured != null && !configured.isBlank()) {
            return configured(configured.trim(), source);
        }
        if (!windows()) {
            try {
                return ExecutableProvider.newJarResourceProvider().get();
            }
            catch (RuntimeException noBinaryForThisPlatform) {
                // fall back to the PATH
            }
        }
        return redisServerOnPath().orElseThrow(() -> new IOException("no redis-server binary for "
                + System.getProperty("os.name") + "/" + System.getProperty("os.arch")
                + " in the embedded-redis jar nor on the PATH; install Redis 6.2+ or set -D"
                + RedisServerProcess.BINARY_PROPERTY));
    }

    /** The {@code redis-server} ({@code redis-server.exe} on Windows) on the PATH. */
    static Optional<File> redisServerOnPath() {
        return onPath(windows() ? "redis-server.exe" : "redis-server");
    }

    /** The first executable file of this name in the directories of the PATH, in their order. */
    static Optional<File> onPath(String name) {
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

    /** {@code "Redis 7.0.15"}, {@code "Valkey 8.0.1"}: from the binary's {@code --version}. */
    static String describe(File binary) {
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

    /** A path, or a bare command name (no separator) looked up on the PATH. */
    private static File configured(String value, String source) throws IOException {
        boolean bareName = !value.contains("/") && !value.contains(File.separator);
        File file = bareName ? onPath(value).orElse(null) : new File(value);
        if (file == null) {
            throw new IOException(source + "=" + value + ": no such command on the PATH");
        }
        if (!file.isFile() || !file.canExecute()) {
            throw new IOException(source + "=" + value + " is not an executable file");
        }
        return file;
    }

    private static boolean windows() {
        return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");
    }
}
