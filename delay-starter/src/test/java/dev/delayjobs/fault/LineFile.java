package dev.delayjobs.fault;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * A file that processes append whole lines to, for the handlers' own logs ({@link HandledLog},
 * {@link RunLog}): each line is one {@code write} on a file opened for appending, so it is in the file
 * (the kernel's page cache) the moment it returns, survives a {@code kill -9} of its process, and the
 * lines of concurrent threads and processes never interleave.
 */
final class LineFile {

    private final FileOutputStream out;

    private LineFile(FileOutputStream out) {
        this.out = out;
    }

    static LineFile appendingTo(Path file) {
        try {
            return new LineFile(new FileOutputStream(file.toFile(), true));
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** Appends {@code line} and a newline in one write. */
    synchronized void write(String line) {
        try {
            out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** The space-separated fields of every line of the given files, in order (a file not written yet counts as empty). */
    static List<String[]> fields(Collection<Path> files) {
        List<String[]> lines = new ArrayList<>();
        for (Path file : files) {
            if (!Files.exists(file)) {
                continue;
            }
            try {
                for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                    lines.add(line.split(" "));
                }
            }
            catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        }
        return lines;
    }
}
