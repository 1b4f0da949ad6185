package dev.leasebox.cli;

import java.io.PrintWriter;

/** A progress line for long work, rewritten in place at most twice a second. */
final class Progress {

    private final PrintWriter err;
    private final String what;
    private final long total;
    private final long started = System.nanoTime();
    private long lastPrinted;

    Progress(PrintWriter err, String what, long total) {
        this.err = err;
        this.what = what;
        this.total = total;
    }

    synchronized void update(long done) {
        long now = System.nanoTime();
        if (now - lastPrinted < 500_000_000L && done < total) {
            return;
        }
        lastPrinted = now;
        double seconds = Math.max(1e-9, (now - started) / 1e9);
        err.printf("\r%s: %,d / %,d (%.0f%%, %,.0f/s)   ", what, done, total, 100.0 * done / Math.max(1, total),
                done / seconds);
        err.flush();
    }

    synchronized void finish() {
        err.println();
        err.flush();
    }
}
