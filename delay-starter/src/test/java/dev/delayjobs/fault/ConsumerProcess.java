package dev.delayjobs.fault;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.delayjobs.embeddedredis.RedisServerProcess;

/**
 * A {@link ConsumerMain} in a JVM of its own, started with this JVM's {@code java} and class path.
 * Its handled-job lines go to {@link #log()}, its output to {@code out.log} next to it. Close it in
 * a {@code finally}: closing kills it if it still runs.
 */
final class ConsumerProcess implements AutoCloseable {

    private final String name;
    private final Process process;
    private final Path log;
    private final Path out;

    /** When this JVM saw the process end (epoch ms), -1 while it runs. */
    private volatile long diedAt = -1;

    private ConsumerProcess(String name, Process process, Path log, Path out) {
        this.name = name;
        this.process = process;
        this.log = log;
        this.out = out;
        process.onExit().thenRun(() -> diedAt = System.currentTimeMillis());
    }

    /**
     * Starts a consumer of {@code queue} under {@code prefix} on {@code redis}.
     * @param properties more {@code name=value} application properties ({@code delay.heartbeat-lease=2s}, ...)
     */
    static ConsumerProcess start(String name, RedisServerProcess redis, String prefix, String queue, int concurrency,
            String... properties) {
        return start(name, redis.port(), prefix, queue, concurrency, properties);
    }

    /** Like {@link #start(String, RedisServerProcess, String, String, int, String...)}, on a Redis (or a proxy) at {@code port}. */
    static ConsumerProcess start(String name, int port, String prefix, String queue, int concurrency,
            String... properties) {
        try {
            Path dir = Files.createDirectories(Path.of("target", "fault", prefix).toAbsolutePath());
            Path log = dir.resolve(name + ".handled");
            Path out = dir.resolve(name + ".out");
            List<String> command = new ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
                    "-cp", System.getProperty("java.class.path"),
                    ConsumerMain.class.getName(),
                    "--spring.data.redis.host=127.0.0.1",
                    "--spring.data.redis.port=" + port,
                    "--delay.key-prefix=" + prefix,
                    "--delay.instance-id=" + name,
                    "--fault.queue=" + queue,
                    "--fault.concurrency=" + concurrency,
                    "--fault.log=" + log,
                    "--spring.main.banner-mode=off",
                    "--logging.level.org.redisson=warn"));
            for (String property : properties) {
                command.add("--" + property);
            }
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            return new ConsumerProcess(name, process, log, out);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("cannot start consumer process " + name, ex);
        }
    }

    String name() {
        return name;
    }

    long pid() {
        return process.pid();
    }

    /** The file of handled-job lines ({@link HandledLog}). */
    Path log() {
        return log;
    }

    /**
     * When the process was seen to end (epoch ms; a few ms after it died, never before), -1 while it
     * runs: the latest a handler call of it that wrote no end line can have lasted.
     */
    long diedAt() {
        return diedAt;
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Waits until the application has started; fails if it exits or does not start in time. */
    void awaitReady(Duration timeout) {
        Path marker = Path.of(log + ".ready");
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!Files.exists(marker)) {
            if (!process.isAlive()) {
                throw new IllegalStateException("consumer " + name + " exited with " + process.exitValue()
                        + " before it was ready; see " + out);
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("consumer " + name + " not ready within " + timeout + "; see " + out);
            }
            sleep(20);
        }
    }

    /** {@code kill -9}: the JVM dies at once, in the middle of whatever it does. */
    void kill() {
        process.destroyForcibly();
        waitForExit(Duration.ofSeconds(10));
    }

    /** {@code kill} (SIGTERM): the JVM runs its shutdown hooks, so the application context closes gracefully. */
    void terminate() {
        process.destroy();
    }

    /** Waits for the process to end; returns whether it did within {@code timeout}. */
    boolean waitForExit(Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The process's output so far (its log). */
    String output() {
        try {
            return Files.exists(out) ? Files.readString(out) : "";
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            waitForExit(Duration.ofSeconds(10));
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }
}
