package dev.leasebox.testing;

import dev.leasebox.Leasebox;
import dev.leasebox.jdbc.store.JdbcOutboxStore;
import dev.leasebox.outbox.FencedOutboxStore;
import dev.leasebox.outbox.OutboxClaimStore;

import javax.sql.DataSource;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * Tooling, not API: a {@link Leasebox.Builder} with the hooks that benchmarks, the chaos harness and tests use
 * to reach inside a drain, as db-scheduler's {@code ManualSchedulerBuilder} extends its {@code SchedulerBuilder}.
 * The drain it builds is the one {@link Leasebox#drain} builds, plus what the hooks add. They may change with any
 * version, and an application has no use for them: an application's metrics are {@link Leasebox.Builder#meterLeases}
 * and {@link Leasebox.Builder#listener}.
 *
 * <p>The hooks return this builder, the inherited settings a {@link Leasebox.Builder}: set the hooks first.
 *
 * <pre>{@code
 * Leasebox drain = LeaseboxToolBuilder.drain(dataSource).withoutClaimStyleRegistry()
 *         .decorateClaimStore(store -> new TimedClaimStore(store))
 *         .table("bench_outbox").provider(provider).build();
 * }</pre>
 */
public class LeaseboxToolBuilder extends Leasebox.Builder {

    /** A builder of a drain of the outbox table in {@code dataSource}. */
    protected LeaseboxToolBuilder(DataSource dataSource) {
        super(dataSource);
    }

    /** Starts building a drain of the outbox table in {@code dataSource}, with the tooling hooks. */
    public static LeaseboxToolBuilder drain(DataSource dataSource) {
        return new LeaseboxToolBuilder(dataSource);
    }

    /**
     * Wraps the claim store the drain claims through (timing, history recording, fault injection). The wrapper
     * must forward every call; it sees claims and completions exactly as the engine makes them.
     */
    @Override
    public LeaseboxToolBuilder decorateClaimStore(UnaryOperator<OutboxClaimStore> decorator) {
        super.decorateClaimStore(decorator);
        return this;
    }

    /**
     * Wraps the table store that row leases from {@link #leases} are recorded on (timing or tracing the store's
     * round trips). The wrapper must forward every call.
     */
    @Override
    public LeaseboxToolBuilder decorateFencedStore(UnaryOperator<FencedOutboxStore> decorator) {
        super.decorateFencedStore(decorator);
        return this;
    }

    /** Adjusts the JDBC store before it opens, after the drain's own settings; the store's defaults are the safe ones. */
    @Override
    public LeaseboxToolBuilder configureStore(Consumer<JdbcOutboxStore.Builder> configure) {
        super.configureStore(configure);
        return this;
    }

    /** Skips the claim-style registry, on a table the tool owns: a fleet that mixes claim styles is then not refused. */
    @Override
    public LeaseboxToolBuilder withoutClaimStyleRegistry() {
        super.withoutClaimStyleRegistry();
        return this;
    }
}
