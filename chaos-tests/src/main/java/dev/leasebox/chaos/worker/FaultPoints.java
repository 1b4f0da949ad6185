package dev.leasebox.chaos.worker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * In-process faults of a chaos worker, driven by files in one directory that the harness and the worker share.
 * A fault point is a named place in the lease code where a Byteman rule (written by the harness) calls in
 * ({@link FaultPoint}); it does nothing until the harness arms it:
 *
 * <ul>
 *   <li>the harness writes {@code POINT.armed} holding an arming number {@code N} ({@link #arm});</li>
 *   <li>the first thread of the worker to reach the point under arming {@code N} acts once: {@link #hold} writes
 *       {@code POINT.reached-N} (what it was doing there) and parks until {@code POINT.release-N} exists, at most
 *       {@link #HOLD_AT_MOST}; {@link #fail} writes {@code POINT.reached-N} and answers true, and the rule then
 *       throws;</li>
 *   <li>every other thread, and every thread after that, passes through.</li>
 * </ul>
 *
 * Files are written whole (a temporary file moved into place), so a reader never sees half a line.
 */
public final class FaultPoints {

    /** The system property naming the directory ({@code -Dleasebox.chaos.fault-points=DIR}). */
    public static final String DIRECTORY_PROPERTY = "leasebox.chaos.fault-points";

    /** The longest a held thread waits for its release: a harness that died must not leave a worker stuck. */
    public static final Duration HOLD_AT_MOST = Duration.ofSeconds(60);

    private static final Set<String> SPENT = ConcurrentHashMap.newKeySet();

    private FaultPoints() {
    }

    /** Arms {@code point} in {@code dir} again; the arming number the worker will answer under. */
    public static int arm(Path dir, String point) {
        int next = armedNumber(dir, point).orElse(0) + 1;
        write(dir.resolve(point + ".armed"), Integer.toString(next));
        return next;
    }

    /** What the worker wrote when a thread reached {@code point} under arming {@code number}, once it has. */
    public static Optional<String> reached(Path dir, String point, int number) {
        return read(dir.resolve(point + ".reached-" + number));
    }

    /** Lets the thread held at {@code point} under arming {@code number} go on. */
    public static void release(Path dir, String point, int number) {
        write(dir.resolve(point + ".release-" + number), "release");
    }

    /**
     * Holds the calling thread at {@code point} if it is the first to reach the current arming: see the class
     * comment. Returns whether it held.
     */
    public static boolean hold(Path dir, String point, String detail) {
        Optional<Integer> number = take(dir, point, detail);
        if (number.isEmpty()) {
            return false;
        }
        Path release = dir.resolve(point + ".release-" + number.get());
        long deadline = System.nanoTime() + HOLD_AT_MOST.toNanos();
        while (!Files.exists(release) && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
        }
        return true;
    }

    /** True for the first thread to reach the current arming of {@code point}, which has then been recorded. */
    public static boolean fail(Path dir, String point, String detail) {
        return take(dir, point, detail).isPresent();
    }

    private static Optional<Integer> take(Path dir, String point, String detail) {
        Optional<Integer> number = armedNumber(dir, point);
        if (number.isEmpty() || !SPENT.add(point + "#" + number.get())) {
            return Optional.empty();
        }
        write(dir.resolve(point + ".reached-" + number.get()), Thread.currentThread().getName() + ": " + detail);
        return number;
    }

    private static Optional<Integer> armedNumber(Path dir, String point) {
        return read(dir.resolve(point + ".armed")).map(String::strip).map(Integer::valueOf);
    }

    private static Optional<String> read(Path file) {
        try {
            return Optional.of(Files.readString(file, StandardCharsets.UTF_8));
        } catch (NoSuchFileException absent) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the fault point file " + file + ": " + e.getMessage(), e);
        }
    }

    private static void write(Path file, String text) {
        try {
            Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
            Files.writeString(temporary, text, StandardCharsets.UTF_8);
            Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the fault point file " + file + ": " + e.getMessage(), e);
        }
    }
}
