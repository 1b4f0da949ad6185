package dev.leasebox.spring;

import dev.leasebox.claim.ClaimMode;
import dev.leasebox.claim.Granularity;
import dev.leasebox.drain.DrainConfigurationException;
import dev.leasebox.drain.DrainOptions;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.lease.spi.LeaseBackend;
import dev.leasebox.lease.spi.LeaseBackendSettings;
import dev.leasebox.lease.spi.LeaseBackends;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.spring.LeaseboxProperties.Backend;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * The {@code leasebox.*} properties checked once, at bean creation: every problem is reported with the
 * property that causes it, before anything is opened.
 *
 * @param backend       where leases come from: DATABASE, or the backend to open by name; null when the
 *                      application's LeaseManager bean is used
 * @param leaseBackend  the backend module found by name (null unless opened by name)
 * @param address       the backend's address (null unless opened by name)
 * @param provider      the provider spec (null when the application's OutboxProvider bean is used)
 */
record DrainSettings(TableName table, DrainOptions options, Backend backend, LeaseBackend leaseBackend, String address,
                     String namespace, ProviderSpecs provider, Granularity granularity, ClaimMode claimMode,
                     java.util.Map<String, String> backendOptions, boolean wakeUps) {

    /** Whether leases come from the application's LeaseManager bean. */
    boolean usesLeaseManagerBean() {
        return backend == null;
    }

    boolean opensBackend() {
        return leaseBackend != null;
    }

    LeaseBackendSettings backendSettings() {
        return new LeaseBackendSettings(address, namespace, options.leaseDuration(), backendOptions);
    }

    static DrainSettings from(LeaseboxProperties p, boolean leaseManagerBean, boolean providerBean) {
        TableName table = parseTable(p);
        DrainOptions options = drainOptions(p);
        Backend backend = chooseBackend(p, leaseManagerBean);
        NamedBackend named = backend != null && backend != Backend.DATABASE ? findByName(p, backend) : NamedBackend.NONE;
        boolean partition = p.getGranularity() == Granularity.PARTITION;
        if (!partition && backend == Backend.DATABASE && p.getClaimMode() == ClaimMode.LEAN) {
            throw new LeaseboxConfigurationException("leasebox.claim-mode=lean needs leases from a coordinator "
                    + "(leasebox.backend=redis|zookeeper|hazelcast or a LeaseManager bean) or leasebox.granularity=partition:"
                    + " the database backend claims in the row itself");
        }
        ProviderSpecs provider = providerBean ? null : parseProvider(p);
        return new DrainSettings(table, options, backend, named.leaseBackend(), named.address(), p.getNamespace(), provider,
                p.getGranularity(), p.getClaimMode(), java.util.Map.copyOf(p.getBackendOptions()), p.isWakeUps());
    }

    private static TableName parseTable(LeaseboxProperties p) {
        try {
            return TableName.parse(Objects.requireNonNullElse(p.getTable(), ""));
        } catch (IllegalArgumentException e) {
            throw new LeaseboxConfigurationException("leasebox.table=" + p.getTable() + " is not a table name: "
                    + e.getMessage().replace(" (property table)", ""));
        }
    }

    /** The drain's options, each property checked in its own words before the builder checks them together. */
    private static DrainOptions drainOptions(LeaseboxProperties p) {
        require(p.getBatch() >= 1 && p.getBatch() <= ClaimRequest.MAX_BATCH_SIZE,
                "leasebox.batch must be in 1.." + ClaimRequest.MAX_BATCH_SIZE + ", was " + p.getBatch());
        require(p.getConcurrency() >= 1 && p.getConcurrency() <= DrainOptions.MAX_CONCURRENCY,
                "leasebox.concurrency must be in 1.." + DrainOptions.MAX_CONCURRENCY + ", was " + p.getConcurrency());
        require(positive(p.getLeaseTtl()), "leasebox.lease-ttl must be positive, was " + p.getLeaseTtl());
        require(p.getMaxAttempts() >= 1, "leasebox.max-attempts must be at least 1, was " + p.getMaxAttempts());
        Duration initial = p.getBackoff().getInitial();
        Duration max = p.getBackoff().getMax();
        require(initial != null && initial.toMillis() >= 1, "leasebox.backoff.initial must be at least 1ms, was " + initial);
        require(max != null && max.compareTo(initial) >= 0,
                "leasebox.backoff.max must be at least leasebox.backoff.initial (" + initial + "), was " + max);
        require(p.getShutdownTimeout() != null && !p.getShutdownTimeout().isNegative(),
                "leasebox.shutdown-timeout must not be negative, was " + p.getShutdownTimeout());
        require(p.getOwner() == null || !p.getOwner().isBlank(), "leasebox.owner must not be blank when set");
        require(p.getNamespace() != null && p.getNamespace().matches("[A-Za-z0-9_.{}-]{1,64}"),
                "leasebox.namespace must be 1-64 characters of A-Z a-z 0-9 _ . - { }, was '" + p.getNamespace() + "'");
        try {
            DrainOptions.Builder builder = DrainOptions.builder().batchSize(p.getBatch()).concurrency(p.getConcurrency())
                    .leaseDuration(p.getLeaseTtl()).maxAttempts(p.getMaxAttempts()).backoff(initial, max)
                    .shutdownTimeout(p.getShutdownTimeout());
            if (p.getOwner() != null) {
                builder.owner(p.getOwner());
            }
            return builder.build();
        } catch (DrainConfigurationException e) {
            throw new LeaseboxConfigurationException("leasebox.* properties: " + e.getMessage(), e);
        }
    }

    /** DATABASE, a backend to open by name, or null when the application's LeaseManager bean is used. */
    private static Backend chooseBackend(LeaseboxProperties p, boolean leaseManagerBean) {
        Backend backend = p.getBackend();
        if (backend == null) {
            return leaseManagerBean ? null : Backend.DATABASE;
        }
        if (backend != Backend.DATABASE && leaseManagerBean) {
            return null; // the application's manager wins over opening one by name
        }
        return backend;
    }

    /** A backend module found by name and its address; both null when none is opened by name. */
    private record NamedBackend(LeaseBackend leaseBackend, String address) {
        static final NamedBackend NONE = new NamedBackend(null, null);
    }

    private static NamedBackend findByName(LeaseboxProperties p, Backend backend) {
        String name = backend.name().toLowerCase(Locale.ROOT);
        String property = addressProperty(backend);
        String address = address(p, backend);
        if (address == null || address.isBlank()) {
            throw new LeaseboxConfigurationException("leasebox.backend=" + name + " needs " + property + " ("
                    + addressFormat(name) + "), or a LeaseManager bean");
        }
        try {
            return new NamedBackend(LeaseBackends.named(name), address);
        } catch (IllegalArgumentException e) {
            throw new LeaseboxConfigurationException("leasebox.backend=" + name + ": " + e.getMessage());
        }
    }

    private static ProviderSpecs parseProvider(LeaseboxProperties p) {
        if (p.getProvider() == null || p.getProvider().isBlank()) {
            throw new LeaseboxConfigurationException("leasebox needs a provider: define an OutboxProvider bean or set "
                    + "leasebox.provider (log | noop | http:URL | jdbc-inbox:JDBC_URL | NAME:TARGET of a provider jar, e.g."
                    + " kafka:BOOTSTRAP/TOPIC with leasebox-kafka)");
        }
        return ProviderSpecs.parse(p.getProvider());
    }

    private static String address(LeaseboxProperties p, Backend backend) {
        return switch (backend) {
            case REDIS -> p.getRedis().getUri();
            case ZOOKEEPER -> p.getZookeeper().getConnect();
            case HAZELCAST -> p.getHazelcast().getMembers();
            case DATABASE -> null;
        };
    }

    static String addressProperty(Backend backend) {
        return switch (backend) {
            case REDIS -> "leasebox.redis.uri";
            case ZOOKEEPER -> "leasebox.zookeeper.connect";
            case HAZELCAST -> "leasebox.hazelcast.members";
            case DATABASE -> "nothing";
        };
    }

    private static String addressFormat(String name) {
        LeaseBackend found = LeaseBackends.available().get(name);
        if (found != null) {
            return found.addressFormat();
        }
        return switch (name) {
            case "redis" -> "redis://host:port";
            case "zookeeper" -> "host:port[,host:port...]";
            default -> "host:port,host:port";
        };
    }

    private static boolean positive(Duration d) {
        return d != null && !d.isNegative() && !d.isZero();
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new LeaseboxConfigurationException(message);
        }
    }
}
