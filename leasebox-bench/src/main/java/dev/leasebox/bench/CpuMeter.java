package dev.leasebox.bench;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * Reads, at the start and the end of a cell's window, the CPU time of the database server's processes
 * (those working for this bench, and the whole server), of this JVM ({@code OperatingSystemMXBean
 * #getProcessCpuTime}) and of the coordinator's server process where it has one ({@code redis-server}),
 * and how busy the machine was: on a shared two-core machine rows a second follow CPU per row, and this
 * says whose CPU it was. Linux only (processes are read from {@code /proc}); elsewhere, and for processes
 * it cannot find, the figures are NaN ("n/a").
 */
final class CpuMeter {

    /** A meter that measures nothing. */
    static final CpuMeter NONE = new CpuMeter(ProcessTree.PROC, Optional.empty(), Optional.empty(), Optional.empty(),
            false, "");

    private final Path proc;
    private final Optional<TickSource> database;
    private final Optional<TickSource> databaseServer;
    private final Optional<TickSource> coordinator;
    private final boolean jvm;
    private final String processes;
    private final double ticksPerSecond;
    private Reading start;
    private Reading end;

    /**
     * @param database       the database processes working for this bench (PostgreSQL: {@link PostgresOwnBackends})
     * @param databaseServer every process of the database server
     * @param coordinator    the coordinator's server process
     * @param jvm            whether to read this JVM
     * @param processes      what is read, for the report
     */
    CpuMeter(Path proc, Optional<TickSource> database, Optional<TickSource> databaseServer, Optional<TickSource> coordinator,
             boolean jvm, String processes) {
        this.proc = proc;
        this.database = database;
        this.databaseServer = databaseServer;
        this.coordinator = coordinator;
        this.jvm = jvm;
        this.processes = processes;
        this.ticksPerSecond = CpuSources.ticksPerSecond();
    }

    /** The same meter with {@code source} as the coordinator's process, described as {@code what}. */
    CpuMeter withCoordinator(Optional<TickSource> source, String what) {
        return this == NONE ? this : new CpuMeter(proc, database, databaseServer, source, jvm,
                processes + "; coordinator: " + what);
    }

    /** What the meter reads, e.g. "database: postgres backends of …; jvm: pid 4242". */
    String describe() {
        return processes;
    }

    void start() {
        start = read();
        end = null;
    }

    void stop() {
        end = read();
    }

    /** The window's figures for {@code rows} finalized in it; {@link CpuFigures#NONE} before start and stop. */
    CpuFigures figures(long rows) {
        if (start == null || end == null || this == NONE) {
            return CpuFigures.NONE;
        }
        return new CpuFigures(seconds(start.database, end.database), seconds(start.server, end.server), jvmSeconds(),
                seconds(start.coordinator, end.coordinator), busyPercent(start.machine, end.machine), rows, processes);
    }

    private double jvmSeconds() {
        return start.jvmNanos >= 0 && end.jvmNanos >= 0 ? (end.jvmNanos - start.jvmNanos) / 1e9 : Double.NaN;
    }

    private double seconds(Optional<Map<Long, Long>> from, Optional<Map<Long, Long>> to) {
        return from.isPresent() && to.isPresent() ? TickSource.between(from.get(), to.get()) / ticksPerSecond : Double.NaN;
    }

    /** The busy share of the machine's ticks between two {@code /proc/stat} readings, in percent; NaN without both. */
    static double busyPercent(Optional<long[]> from, Optional<long[]> to) {
        if (from.isEmpty() || to.isEmpty()) {
            return Double.NaN;
        }
        long total = to.get()[1] - from.get()[1];
        return total <= 0 ? Double.NaN : 100.0 * (to.get()[0] - from.get()[0]) / total;
    }

    private Reading read() {
        return new Reading(database.flatMap(TickSource::ticks), databaseServer.flatMap(TickSource::ticks),
                coordinator.flatMap(TickSource::ticks), jvm ? jvmNanos() : -1, machine());
    }

    private Optional<long[]> machine() {
        try (var lines = Files.lines(proc.resolve("stat"))) {
            return lines.findFirst().flatMap(ProcStat::machineTicks);
        } catch (java.io.IOException | java.io.UncheckedIOException e) {
            return Optional.empty();
        }
    }

    /** This JVM's CPU time in nanoseconds, all threads; -1 where the JVM cannot tell. */
    static long jvmNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    private record Reading(Optional<Map<Long, Long>> database, Optional<Map<Long, Long>> server,
                           Optional<Map<Long, Long>> coordinator, long jvmNanos, Optional<long[]> machine) {
    }
}
