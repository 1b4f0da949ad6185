package dev.leasebox;

import dev.leasebox.drain.OutboxDrain;
import dev.leasebox.drain.WakeUpFeed;
import dev.leasebox.jdbc.DatabaseKind;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.jdbc.store.PostgreSqlCommitListener;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.WakeUpChannel;
import dev.leasebox.wakeup.LocalWakeUps;
import dev.leasebox.wakeup.WakeUp;
import dev.leasebox.wakeup.WakeUpPublisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Where a {@link Leasebox}'s drain hears that entries may be waiting, from {@link #start()} until
 * {@link #close()}: Leasebox writers of this JVM ({@link LocalWakeUps}); on PostgreSQL, the table's commit
 * notifications ({@link PostgreSqlCommitListener}); and the lease manager's {@link WakeUpChannel}, where it
 * offers one, for writers in other processes. While commit notifications are live they are the only hints
 * heeded: any other announces a commit the notification announces too (or, pending, one it will), and
 * would cost a cycle more.
 */
final class WakeUpSources implements WakeUpFeed {

    private static final Logger log = LoggerFactory.getLogger(WakeUpSources.class);

    private final DataSource dataSource;
    private final TableName table;
    private final DatabaseKind kind;
    private final Optional<WakeUpChannel> channel;
    private final String coordinator;
    private final OutboxDrain drain;
    private final List<AutoCloseable> open = new ArrayList<>();
    private volatile PostgreSqlCommitListener.Subscription commits;

    WakeUpSources(DataSource dataSource, TableName table, DatabaseKind kind, LeaseManager leases, OutboxDrain drain) {
        this.dataSource = dataSource;
        this.table = table;
        this.kind = kind;
        this.channel = leases == null ? Optional.empty() : leases.as(WakeUpChannel.class);
        this.coordinator = leases == null ? "-" : leases.describe();
        this.drain = drain;
    }

    /** Subscribes to every source; a coordinator that refuses the subscription leaves the drain to its other sources. */
    @Override
    public synchronized void start() {
        if (kind == DatabaseKind.POSTGRESQL) {
            commits = PostgreSqlCommitListener.subscribe(dataSource, table, () -> drain.wakeUp(WakeUp.COMMITTED));
            open.add(commits);
        }
        open.add(LocalWakeUps.subscribe(table.qualified(), this::hint));
        channel.ifPresent(c -> {
            try {
                open.add(c.subscribe(WakeUpPublisher.topic(table.qualified()), new WakeUpChannel.Listener() {
                    @Override
                    public void hint(String word) {
                        WakeUpPublisher.hint(word).ifPresent(WakeUpSources.this::hint);
                    }

                    @Override
                    public void subscribed() {
                        WakeUpSources.this.hint(WakeUp.COMMITTED); // hints sent before now were missed: look once
                    }
                }));
            } catch (RuntimeException e) {
                log.warn("Cannot subscribe to wake-ups of outbox table {} through {} ({}): its drain hears only of "
                        + "this process's writers{} and otherwise polls", table, coordinator, e.toString(),
                        kind == DatabaseKind.POSTGRESQL ? " and of commits" : "");
            }
        });
    }

    /** What the wake-ups of a drain on {@code kind} leasing from {@code leases} (null: none) come from, for its start-up line. */
    static String describe(DatabaseKind kind, LeaseManager leases) {
        List<String> sources = new ArrayList<>();
        if (kind == DatabaseKind.POSTGRESQL) {
            sources.add("PostgreSQL commit notifications");
        }
        sources.add("writers in this process");
        if (leases != null && leases.as(WakeUpChannel.class).isPresent()) {
            sources.add("the coordinator's channel");
        }
        return String.join(", ", sources);
    }

    private void hint(WakeUp hint) {
        PostgreSqlCommitListener.Subscription live = commits;
        if (live == null || !live.live()) {
            drain.wakeUp(hint);
        }
    }

    @Override
    public synchronized void close() {
        for (int i = open.size() - 1; i >= 0; i--) {
            try {
                open.get(i).close();
            } catch (Exception e) { // closing on the way out: every source gets its chance
                log.debug("Closing a wake-up source of {} failed: {}", table, e.toString());
            }
        }
        open.clear();
    }
}
