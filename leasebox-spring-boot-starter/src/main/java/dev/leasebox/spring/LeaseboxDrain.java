package dev.leasebox.spring;

import dev.leasebox.Leasebox;
import dev.leasebox.LeaseboxSettings;
import dev.leasebox.drain.DrainListener;
import dev.leasebox.drain.ProviderFailureLog;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.spi.Redacted;
import dev.leasebox.lease.MonotonicClock;
import dev.leasebox.provider.OutboxProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import javax.sql.DataSource;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The drain the starter runs: built and started with the application context, stopped with it. Stopping
 * lets emissions in flight finish (up to {@code leasebox.shutdown-timeout}) or releases their claims,
 * then closes what the starter opened: the lease manager opened by name and the provider opened from
 * {@code leasebox.provider}. The application's own beans (DataSource, LeaseManager, OutboxProvider) stay
 * the application's.
 *
 * <p>Starting first checks the outbox table's migrations ({@link SchemaAtStart}: applies the missing ones with
 * {@code leasebox.schema.apply=true}, else refuses a table without every one). A failing provider is logged as
 * the CLI's worker reports it ({@link ProviderFailureLog}): the first failure at once, then at most one line every
 * ten seconds summing up the failures and dead letters since, and what is held back when the drain stops.
 */
public class LeaseboxDrain implements SmartLifecycle {

    private static final Logger LOG = LoggerFactory.getLogger(LeaseboxDrain.class);

    private final DataSource dataSource;
    private final LeaseboxSettings settings;
    private final LeaseManager applicationLeaseManager;
    private final OutboxProvider applicationProvider;
    private final List<DrainListener> listeners;
    private final List<LeaseboxCustomizer> customizers;
    private final SchemaAtStart schema;
    private final Clock clock = MonotonicClock.system();

    private final Object lock = new Object();
    private volatile Leasebox leasebox; // written under lock, read by enqueueing threads too
    private volatile LeaseManager leaseManager;
    private volatile LeaseManager coordinator;
    private final List<AutoCloseable> opened = new ArrayList<>();
    private ProviderFailureLog providerFailures;
    private volatile boolean running;
    private volatile String stoppedBecause;

    LeaseboxDrain(DataSource dataSource, LeaseboxSettings settings, LeaseManager applicationLeaseManager,
                  OutboxProvider applicationProvider, List<DrainListener> listeners, List<LeaseboxCustomizer> customizers,
                  SchemaAtStart schema) {
        this.dataSource = dataSource;
        this.settings = settings;
        this.applicationLeaseManager = applicationLeaseManager;
        this.applicationProvider = applicationProvider;
        this.listeners = List.copyOf(listeners);
        this.customizers = List.copyOf(customizers);
        this.schema = schema;
    }

    @Override
    public void start() {
        synchronized (lock) {
            if (running) {
                return;
            }
            try {
                schema.prepare(dataSource);
                leasebox = build();
                leasebox.start();
                running = true;
                stoppedBecause = null;
                LOG.info("Leasebox drains {} through {}", settings.table(), leasebox.describe());
            } catch (RuntimeException e) {
                closeAll();
                throw new IllegalStateException("Leasebox cannot drain " + settings.table() + ": " + e.getMessage(), e);
            }
        }
    }

    private Leasebox build() {
        OutboxProvider provider = applicationProvider;
        if (provider == null) {
            // jdbc-inbox:JDBC_URL gets a connection per call; an application that wants a pool defines the provider bean
            try {
                provider = settings.provider().orElseThrow().open(clock, DriverManagerDataSource::new);
            } catch (RuntimeException e) {
                throw new LeaseboxConfigurationException(e.getMessage(), e);
            }
            if (provider instanceof AutoCloseable closeable) {
                opened.add(closeable);
            }
        }
        UnaryOperator<LeaseManager> decorate = manager -> {
            LeaseManager decorated = manager;
            for (LeaseboxCustomizer customizer : customizers) {
                decorated = customizer.decorateLeaseManager(decorated);
            }
            return decorated;
        };
        LeaseManager manager = null;
        if (settings.backend().isEmpty()) {
            manager = applicationLeaseManager;
        } else if (settings.opensBackend()) {
            try {
                manager = settings.openLeases(clock).orElseThrow(); // rows grouped as the CLI groups them
            } catch (RuntimeException e) {
                String backend = settings.backend().orElseThrow();
                throw new LeaseboxConfigurationException(settings.spelled("backend") + "=" + backend + " at "
                        + settings.spelled(backend) + "=" + Redacted.credentials(settings.address()) + " cannot be opened: "
                        + Redacted.credentials(e.getMessage()), e);
            }
            opened.add(manager);
        }
        if (manager != null) {
            coordinator = manager;
            leaseManager = decorate.apply(manager);
        }
        Leasebox.Builder builder = settings.applyTo(Leasebox.drain(dataSource), Optional.ofNullable(leaseManager))
                .provider(provider).clock(clock).onRegistryConflict(this::stopOnConflict);
        providerFailures = new ProviderFailureLog(line -> LOG.warn("Leasebox {}: {}", settings.table(), line));
        List<DrainListener> all = new ArrayList<>(listeners);
        all.add(providerFailures);
        builder.listener(DrainListener.all(all.toArray(DrainListener[]::new)));
        for (LeaseboxCustomizer customizer : customizers) {
            customizer.customize(builder);
        }
        return builder.build();
    }

    private void stopOnConflict(String why) {
        stoppedBecause = why;
        LOG.error("Leasebox stops draining {}: {}", settings.table(), why);
        Thread stopper = new Thread(this::stop, "leasebox-stop");
        stopper.setDaemon(true);
        stopper.start();
    }

    @Override
    public void stop() {
        synchronized (lock) {
            if (!running && leasebox == null) {
                return;
            }
            running = false;
            closeAll();
        }
    }

    private void closeAll() {
        if (leasebox != null) {
            try {
                leasebox.close();
            } catch (RuntimeException e) {
                LOG.warn("Leasebox: closing the drain of {} failed: {}", settings.table(), e.toString());
            }
            leasebox = null;
        }
        if (providerFailures != null) {
            providerFailures.flush();
            providerFailures = null;
        }
        for (int i = opened.size() - 1; i >= 0; i--) {
            try {
                opened.get(i).close();
            } catch (Exception e) {
                LOG.warn("Leasebox: closing {} failed: {}", opened.get(i), e.toString());
            }
        }
        opened.clear();
        leaseManager = null;
        coordinator = null;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Starts last and stops first among the context's lifecycle beans: the DataSource outlives it. */
    @Override
    public int getPhase() {
        return DEFAULT_PHASE - 1;
    }

    /** The drain while it runs, for {@code engine().runOnce()} in jobs and tests. */
    public Optional<Leasebox> leasebox() {
        return Optional.ofNullable(leasebox);
    }

    /** The lease manager the drain leases from while it runs (empty for the database backend). */
    public Optional<LeaseManager> leaseManager() {
        return Optional.ofNullable(leaseManager);
    }

    /** The lease manager as opened or given, before any decoration: what the health indicator probes. */
    Optional<LeaseManager> coordinator() {
        return Optional.ofNullable(coordinator);
    }

    /** The outbox table. */
    public TableName table() {
        return settings.table();
    }

    /** Why the drain stopped by itself (a conflict in the table's claim-style registry), if it did. */
    public Optional<String> stoppedBecause() {
        return Optional.ofNullable(stoppedBecause);
    }

    LeaseboxSettings settings() {
        return settings;
    }
}
