package dev.leasebox.bench;

/**
 * The CPU one cell's window cost, in seconds, per process group, and the rows finalized in it; NaN
 * where a group was not measured (no {@code /proc}, a server on another host, a coordinator given by
 * address that the bench cannot find, or one running inside the bench's JVM).
 *
 * @param databaseSeconds    the database processes working for this bench: PostgreSQL's backends of this JVM's
 *                           connections and its background processes; MariaDB's server process (one process,
 *                           threads per connection: other clients' threads included)
 * @param serverSeconds      every process of the database server, other clients' backends included
 * @param jvmSeconds         the bench's JVM: the workers, the feeder or writer, and any in-process coordinator
 * @param coordinatorSeconds the coordinator's server process, where it is one of its own ({@code redis-server})
 * @param machineBusyPercent how busy the whole machine was (all CPUs, {@code /proc/stat}), 0 to 100
 * @param rows               rows finalized in the window
 * @param processes          what was summed, e.g. "database: postgres pid 2248 and its children; coordinator: ..."
 */
record CpuFigures(double databaseSeconds, double serverSeconds, double jvmSeconds, double coordinatorSeconds, double machineBusyPercent,
                  long rows, String processes) {

    /** Nothing measured. */
    static final CpuFigures NONE = new CpuFigures(Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, 0, "");

    /** The rows the per-row figures are quoted for. */
    static final int PER_ROWS = 10_000;

    double databasePer10k() {
        return per10k(databaseSeconds, rows);
    }

    double serverPer10k() {
        return per10k(serverSeconds, rows);
    }

    double jvmPer10k() {
        return per10k(jvmSeconds, rows);
    }

    double coordinatorPer10k() {
        return per10k(coordinatorSeconds, rows);
    }

    /** The sum of the measured groups per 10,000 rows; NaN when the database or the JVM was not measured. */
    double totalPer10k() {
        double coordinator = Double.isNaN(coordinatorSeconds) ? 0 : coordinatorSeconds;
        return per10k(databaseSeconds + jvmSeconds + coordinator, rows);
    }

    /** CPU seconds per 10,000 rows: {@code seconds × 10,000 ÷ rows}; NaN for no rows or an unmeasured group. */
    static double per10k(double seconds, long rows) {
        if (rows <= 0 || Double.isNaN(seconds)) {
            return Double.NaN;
        }
        return seconds * PER_ROWS / rows;
    }

    /** A per-10k figure as the table prints it: two decimals, or "n/a". */
    static String shown(double per10k) {
        return Double.isNaN(per10k) ? "n/a" : String.format(java.util.Locale.ROOT, "%.2f", per10k);
    }
}
