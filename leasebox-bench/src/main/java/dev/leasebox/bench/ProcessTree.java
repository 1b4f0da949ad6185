package dev.leasebox.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The CPU time of one server process and its children, read from Linux's {@code /proc}: the root's own
 * ticks and those of its children it has reaped ({@code cutime + cstime}), plus the live children's own
 * ticks. A child that exits inside a window moves from the live sum into the root's reaped sum whole, and
 * one born inside it adds its whole life, so the difference of two readings is the tree's CPU between
 * them (grandchildren are not followed: PostgreSQL's postmaster forks every backend and background
 * process itself, MariaDB and Redis work in threads).
 */
final class ProcessTree implements TickSource {

    static final Path PROC = Path.of("/proc");

    private final Path proc;
    private final long root;
    private final String description;

    ProcessTree(Path proc, long root, String description) {
        this.proc = proc;
        this.root = root;
        this.description = description;
    }

    /** Whether this machine has a Linux {@code /proc} to read. */
    static boolean available(Path proc) {
        return Files.isReadable(proc.resolve("self").resolve("stat"));
    }

    /** What the readings sum, for the report, e.g. "postgres pid 2248 and its children". */
    @Override
    public String description() {
        return description;
    }

    long root() {
        return root;
    }

    /** The tree's ticks so far under the root's pid (one sum: see the class comment); empty when unreadable. */
    @Override
    public Optional<java.util.Map<Long, Long>> ticks() {
        OptionalLong total = total();
        return total.isPresent() ? Optional.of(java.util.Map.of(root, total.getAsLong())) : Optional.empty();
    }

    /** The tree's ticks so far; empty when the root is gone or {@code /proc} cannot be read. */
    OptionalLong total() {
        Optional<ProcStat> rootStat = stat(proc, root);
        if (rootStat.isEmpty()) {
            return OptionalLong.empty();
        }
        long ticks = rootStat.get().ticksWithReapedChildren();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(proc, ProcessTree::isPid)) {
            for (Path entry : entries) {
                Optional<ProcStat> child = stat(entry);
                if (child.isPresent() && child.get().ppid() == root) {
                    ticks += child.get().ownTicks();
                }
            }
        } catch (IOException | UncheckedIOException e) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(ticks);
    }

    /** {@code /proc/<pid>/stat} parsed; empty when the process is gone or the line unreadable. */
    static Optional<ProcStat> stat(Path proc, long pid) {
        return stat(proc.resolve(Long.toString(pid)));
    }

    private static Optional<ProcStat> stat(Path pidDir) {
        try {
            return ProcStat.parse(Files.readString(pidDir.resolve("stat")));
        } catch (IOException | UncheckedIOException e) {
            return Optional.empty(); // exited between the listing and the read
        }
    }

    private static boolean isPid(Path entry) {
        String name = entry.getFileName().toString();
        return !name.isEmpty() && name.chars().allMatch(Character::isDigit);
    }

    /** The pids of the processes whose command name is {@code comm}. */
    static java.util.List<Long> withCommand(Path proc, String comm) {
        java.util.List<Long> pids = new java.util.ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(proc, ProcessTree::isPid)) {
            for (Path entry : entries) {
                stat(entry).filter(s -> s.comm().equals(comm)).ifPresent(s -> pids.add(s.pid()));
            }
        } catch (IOException | UncheckedIOException e) {
            return java.util.List.of();
        }
        return pids;
    }
}
