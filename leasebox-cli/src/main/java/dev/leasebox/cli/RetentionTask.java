package dev.leasebox.cli;

import dev.leasebox.jdbc.OutboxMaintenance;
import dev.leasebox.jdbc.TableName;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.time.Duration;

/**
 * A worker's {@code --retain-delivered}: one purge of DELIVERED rows older than the retention per run,
 * logged when it deleted something; a failure is logged and the next run tries again. Never throws, so
 * the schedule it runs on goes on.
 */
final class RetentionTask implements Runnable {

    private final DataSource dataSource;
    private final TableName table;
    private final OutboxMaintenance.Purge purge;
    private final Duration interval;
    private final PrintWriter out;
    private final PrintWriter err;
    private OutboxMaintenance maintenance;

    RetentionTask(DataSource dataSource, TableName table, Duration retain, Duration interval, PrintWriter out, PrintWriter err) {
        this.dataSource = dataSource;
        this.table = table;
        this.purge = OutboxMaintenance.Purge.delivered(retain);
        this.interval = interval;
        this.out = out;
        this.err = err;
    }

    @Override
    public void run() {
        try {
            if (maintenance == null) {
                maintenance = OutboxMaintenance.on(dataSource, table);
            }
            long purged = maintenance.purge(purge, OutboxMaintenance.DEFAULT_BATCH, n -> {
                if (Thread.currentThread().isInterrupted()) {
                    throw new RetentionStopped();
                }
            });
            if (purged > 0) {
                out.println("worker: retention purged " + PurgeCommand.rows(purged) + " from " + table + " ("
                        + PurgeCommand.describe(purge) + ")");
                out.flush();
            }
        } catch (RetentionStopped stopped) {
            // the worker is stopping: the next start purges the rest
        } catch (Throwable e) {
            err.println("worker: retention purge of " + table + " failed, will retry in "
                    + DurationConverter.format(interval) + ": " + CliErrors.oneLine(e));
            err.flush();
        }
    }

    private static final class RetentionStopped extends RuntimeException {
        RetentionStopped() {
            super(null, null, false, false);
        }
    }
}
