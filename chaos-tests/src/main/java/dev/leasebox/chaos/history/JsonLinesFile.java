package dev.leasebox.chaos.history;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * An append-only JSON-lines file. Each line is handed to the operating system as it is written, so a
 * SIGKILL loses no line that {@link #append} returned for; a torn last line (killed mid-write) is
 * skipped when reading.
 */
public final class JsonLinesFile implements AutoCloseable {

    private final Path path;
    private final OutputStream out;

    private JsonLinesFile(Path path, OutputStream out) {
        this.path = path;
        this.out = out;
    }

    /** Opens {@code path} for appending, creating it and its directory. */
    public static JsonLinesFile append(Path path) {
        try {
            Path parent = path.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            return new JsonLinesFile(path, new FileOutputStream(path.toFile(), true));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open history file " + path + " for appending: " + e.getMessage(), e);
        }
    }

    /** Writes one line (no newline inside). */
    public synchronized void append(String jsonLine) {
        try {
            out.write((jsonLine + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append to " + path + ": " + e.getMessage(), e);
        }
    }

    public Path path() {
        return path;
    }

    @Override
    public synchronized void close() {
        try {
            out.close();
        } catch (IOException e) {
            // the lines were flushed one by one; nothing is lost by a failing close
        }
    }

    /** Every complete line of {@code path} parsed with {@code parser}; a line that does not parse (torn) is skipped. */
    public static <T> List<T> read(Path path, Function<String, T> parser) {
        List<T> out = new ArrayList<>();
        if (!Files.exists(path)) {
            return out;
        }
        try {
            for (String line : Files.readAllLines(path, StandardCharsets.UTF_8)) {
                if (line.isBlank()) {
                    continue;
                }
                try {
                    out.add(parser.apply(line));
                } catch (IllegalArgumentException | IndexOutOfBoundsException torn) {
                    // a line cut by SIGKILL mid-write: the event never completed
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + path + ": " + e.getMessage(), e);
        }
        return out;
    }
}
