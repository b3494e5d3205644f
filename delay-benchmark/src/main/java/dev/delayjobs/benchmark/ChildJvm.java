package dev.delayjobs.benchmark;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A benchmark JVM of its own (a producer or a consumer), started with this JVM's {@code java} and
 * default JVM flags (or the ones given). It talks over its standard streams: it prints {@code @@word ...} lines
 * ({@code @@count N} updates {@link #count()}, the others are awaited with {@link #await}), and
 * reads one-word commands from its standard input. All its output is kept in a log file too.
 */
final class ChildJvm implements AutoCloseable {

    static final String PREFIX = "@@";

    private final String name;
    private final Process process;
    private final BufferedWriter stdin;
    private final BlockingQueue<String> messages = new LinkedBlockingQueue<>();
    private final Path log;
    private volatile int count;

    private ChildJvm(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
        this.stdin = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
        Thread reader = new Thread(this::readOutput, name + "-output");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts {@code main} with {@code args}. When this JVM runs from the benchmark's fat jar, the
     * child runs from it too, through {@code PropertiesLauncher} with {@code -Dloader.main}; from an
     * exploded class path (an IDE), {@code main} is started directly.
     */
    static ChildJvm start(String name, Class<?> main, Path logDir, List<String> args) {
        return start(name, main, logDir, List.of(), args);
    }

    /** As {@link #start(String, Class, Path, List)}, with {@code jvmOptions} (such as {@code -XX:...}) before the class path. */
    static ChildJvm start(String name, Class<?> main, Path logDir, List<String> jvmOptions, List<String> args) {
        String classPath = System.getProperty("java.class.path");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", classPath));
        if (classPath.endsWith(".jar") && !classPath.contains(java.io.File.pathSeparator)) {
            command.add("-Dloader.main=" + main.getName());
            command.add("org.springframework.boot.loader.launch.PropertiesLauncher");
        }
        else {
            command.add(main.getName());
        }
        command.addAll(args);
        try {
            Files.createDirectories(logDir);
            Path log = logDir.resolve(name + ".log");
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            return new ChildJvm(name, process, log);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("cannot start " + name, ex);
        }
    }

    String name() {
        return name;
    }

    /** The latest {@code @@count} the child printed. */
    int count() {
        return count;
    }

    /** Waits for the next {@code @@word ...} message starting with {@code word}; returns what follows the word. */
    String await(String word, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (System.nanoTime() < deadline) {
                String message = messages.poll(50, TimeUnit.MILLISECONDS);
                if (message != null && (message.equals(word) || message.startsWith(word + " "))) {
                    return message.substring(word.length()).trim();
                }
                if (message == null && !process.isAlive() && messages.isEmpty()) {
                    throw new IllegalStateException(name + " exited with " + process.exitValue() + " before '" + word
                            + "'; see " + log);
                }
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        throw new IllegalStateException(name + " did not say '" + word + "' within " + timeout + "; see " + log);
    }

    /** Sends one command line to the child. */
    void send(String command) {
        try {
            stdin.write(command);
            stdin.newLine();
            stdin.flush();
        }
        catch (IOException ex) {
            throw new UncheckedIOException("cannot write to " + name + "; see " + log, ex);
        }
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    boolean waitForExit(Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            waitForExit(Duration.ofSeconds(10));
        }
    }

    private void readOutput() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                PrintWriter out = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8), true)) {
            String line;
            while ((line = in.readLine()) != null) {
                out.println(line);
                if (line.startsWith(PREFIX + "count ")) {
                    count = Integer.parseInt(line.substring(PREFIX.length() + 6).trim());
                }
                else if (line.startsWith(PREFIX)) {
                    messages.add(line.substring(PREFIX.length()));
                }
            }
        }
        catch (IOException | RuntimeException ex) {
            // the child is gone; await() reports it
        }
    }

    /** What a child calls to tell the orchestrator something: one {@code @@...} line, flushed. */
    static void say(String message) {
        synchronized (System.out) {
            System.out.println(PREFIX + message);
            System.out.flush();
        }
    }
}
