package dev.leasebox.bench;

import java.util.Optional;

/**
 * One line of Linux's {@code /proc/<pid>/stat}: the fields the bench's CPU accounting reads. The
 * command name (field 2) is in parentheses and may itself hold spaces and parentheses, so the fields
 * after it are counted from its last closing parenthesis. CPU times are in clock ticks
 * ({@code USER_HZ}, 100 a second on Linux).
 *
 * @param pid    the process
 * @param comm   its command name (at most 15 characters, e.g. {@code postgres}, {@code redis-server})
 * @param ppid   its parent
 * @param utime  user-mode ticks of its threads
 * @param stime  kernel-mode ticks of its threads
 * @param cutime user-mode ticks of its children that exited and were waited for
 * @param cstime kernel-mode ticks of those children
 */
record ProcStat(long pid, String comm, long ppid, long utime, long stime, long cutime, long cstime) {

    /** The line parsed, or empty when it is not a {@code /proc/<pid>/stat} line. */
    static Optional<ProcStat> parse(String line) {
        int open = line.indexOf('(');
        int close = line.lastIndexOf(')');
        if (open <= 0 || close < open) {
            return Optional.empty();
        }
        String[] rest = line.substring(close + 1).trim().split("\\s+");
        if (rest.length < 15) { // state (field 3) to cstime (field 17)
            return Optional.empty();
        }
        try {
            return Optional.of(new ProcStat(Long.parseLong(line.substring(0, open).trim()), line.substring(open + 1, close),
                    Long.parseLong(rest[1]), Long.parseLong(rest[11]), Long.parseLong(rest[12]), Long.parseLong(rest[13]),
                    Long.parseLong(rest[14])));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** Ticks of the process itself. */
    long ownTicks() {
        return utime + stime;
    }

    /** Ticks of the process and of its children that have exited (and were waited for). */
    long ticksWithReapedChildren() {
        return utime + stime + cutime + cstime;
    }

    /**
     * Busy and total ticks of the whole machine from the first line of {@code /proc/stat}
     * ({@code cpu user nice system idle iowait irq softirq steal …}): idle and iowait are not busy. Empty when the
     * line is not the aggregate {@code cpu} line.
     */
    static Optional<long[]> machineTicks(String line) {
        String[] f = line.trim().split("\\s+");
        if (f.length < 5 || !f[0].equals("cpu")) {
            return Optional.empty();
        }
        long total = 0;
        long idle = 0;
        try {
            for (int i = 1; i < Math.min(f.length, 9); i++) { // user … steal; guest is already in user
                long v = Long.parseLong(f[i]);
                total += v;
                if (i == 4 || i == 5) {
                    idle += v;
                }
            }
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
        return Optional.of(new long[]{total - idle, total});
    }
}
