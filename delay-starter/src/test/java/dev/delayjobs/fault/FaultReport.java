package dev.delayjobs.fault;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;

/**
 * The figures of a fault scenario's run, printed and appended to {@code target/fault-report.txt},
 * where docs/reliability.md takes them from.
 */
final class FaultReport {

    private static final Path FILE = Path.of("target", "fault-report.txt");

    private FaultReport() {
    }

    static void record(String scenario, String figures) {
        String line = Instant.now() + " " + scenario + ": " + figures;
        System.out.println("FAULT REPORT " + line);
        try {
            Files.createDirectories(FILE.toAbsolutePath().getParent());
            Files.writeString(FILE, line + System.lineSeparator(), StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
