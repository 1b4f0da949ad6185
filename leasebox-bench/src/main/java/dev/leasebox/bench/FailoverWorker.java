package dev.leasebox.bench;

import dev.leasebox.testing.LeaseboxToolBuilder;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.Leasebox;
import dev.leasebox.claim.LeaseGrouping;
import dev.leasebox.cli.JdbcDataSources;
import dev.leasebox.drain.DrainListener;
import dev.leasebox.drain.DrainOptions;
import dev.leasebox.jdbc.TableName;
import dev.leasebox.lease.spi.LeaseBackendSettings;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.provider.Envelope;
import dev.leasebox.provider.ProviderOutcome;

import dev.leasebox.lease.MonotonicClock;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One worker JVM of the failover measurement: a drain whose provider takes {@code emitMillis} per
 * entry, tracing its lease requests, grants, recorded claims and emissions on stdout
 * ({@link FailoverTrace}), until it is killed. Arguments: jdbcUrl table backend address namespace leaseTtlSeconds owner emitMillis
 * [option=value ...]; backend {@code database} ignores address and namespace.
 */
public final class FailoverWorker {

    private FailoverWorker() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 8) {
            System.err.println("usage: FailoverWorker jdbcUrl table backend address namespace leaseTtlSeconds owner emitMillis [k=v ...]");
            System.exit(2);
        }
        String backend = args[2];
        Duration ttl = Duration.ofSeconds(Long.parseLong(args[5]));
        String owner = args[6];
        long emitMillis = Long.parseLong(args[7]);
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 8; i < args.length; i++) {
            String[] kv = args[i].split("=", 2);
            options.put(kv[0], kv[1]);
        }
        Clock clock = MonotonicClock.system();
        HikariDataSource pool = JdbcDataSources.pooled(args[0], "", "", 3);
        FailoverTrace trace = new FailoverTrace(System.out);
        CountDownLatch pacing = new CountDownLatch(1);
        // Built as leasebox worker builds it; the trace hears the lease manager's grants and the drain's claims.
        Leasebox.Builder builder = LeaseboxToolBuilder.drain(pool).withoutClaimStyleRegistry()
                .table(TableName.parse(args[1])).clock(clock)
                .provider(envelope -> {
                    pacing.await(emitMillis, TimeUnit.MILLISECONDS); // the simulated provider's latency
                    return ProviderOutcome.delivered();
                })
                .options(DrainOptions.builder().owner(owner).batchSize(10).leaseDuration(ttl)
                        .idlePolling(Duration.ofMillis(20), Duration.ofMillis(200)).build())
                .listener(new DrainListener() {
                    @Override
                    public void claimed(List<OutboxClaim> claims) {
                        trace.ids("CLAIM", FailoverTrace.nowMicros(), claims.stream().map(OutboxClaim::entryId).toList());
                    }

                    @Override
                    public void emitting(Envelope envelope) {
                        trace.emit(envelope.entryId(), FailoverTrace.nowMicros());
                    }
                });
        if (!backend.equals(BenchReport.DATABASE)) {
            builder.leases(FailoverTrace.tracing(LeaseGrouping.open(backend,
                    new LeaseBackendSettings(args[3], args[4], ttl, options), clock), trace))
                    .coordinator(backend, args[3], args[4]).rowGrouping(LeaseGrouping.forBackend(backend, options));
        }
        Leasebox drain = builder.build();
        drain.start();
        System.out.println("READY " + owner);
        System.out.flush();
        new CountDownLatch(1).await(); // until killed
    }
}
