package dev.leasebox.bench;

import dev.leasebox.jdbc.TableName;

import java.time.Clock;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Keeps a cell's table from running dry: it fills {@code lowWater} rows up front and, every 100 ms,
 * appends another {@code lowWater} rows (one INSERT … SELECT) whenever fewer than that are left, so
 * the workers never idle for want of rows however fast they are. Rows left over are dropped with the
 * table. The top-ups cost the database some work during the window, in proportion to the drain rate,
 * for every backend alike.
 */
final class BacklogFeeder implements AutoCloseable {

    /** Appends rows numbered {@code first..last} to the table being fed. */
    @FunctionalInterface
    interface Filler {
        void fill(long first, long last);
    }

    private final Filler filler;
    private final CompletionLedger ledger;
    private final long lowWater;
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "leasebox-bench-feeder");
        t.setDaemon(true);
        return t;
    });
    private long inserted; // only the scheduler thread writes after fillInitial()

    BacklogFeeder(BenchDatabase database, TableName table, CompletionLedger ledger, long lowWater, Clock clock) {
        this((first, last) -> database.fill(table, first, last, clock.instant()), ledger, lowWater);
    }

    BacklogFeeder(Filler filler, CompletionLedger ledger, long lowWater) {
        this.filler = filler;
        this.ledger = ledger;
        this.lowWater = lowWater;
    }

    void fillInitial() {
        append(2 * lowWater);
    }

    void start() {
        scheduler.scheduleWithFixedDelay(() -> {
            if (inserted - ledger.completedTotal() < lowWater) {
                append(lowWater);
            }
        }, 100, 100, TimeUnit.MILLISECONDS);
    }

    private void append(long rows) {
        filler.fill(inserted + 1, inserted + rows);
        inserted += rows;
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
        try {
            scheduler.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
