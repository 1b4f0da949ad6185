package dev.leasebox.chaos.fault;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** A libfaketime offset file ({@code FAKETIME_TIMESTAMP_FILE}): one line such as {@code +0}, {@code +6} or {@code -6}. */
record OffsetFile(Path path) {

    void write(String offset) {
        // Written beside and renamed over the file: libfaketime never reads a half-written offset (an
        // unparsable line makes it exit the worker).
        try {
            Path next = path.resolveSibling(path.getFileName() + ".next");
            Files.createDirectories(path.toAbsolutePath().getParent());
            Files.writeString(next, offset + "\n");
            Files.move(next, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the libfaketime offset " + offset + " to " + path + ": "
                    + e.getMessage(), e);
        }
    }
}
