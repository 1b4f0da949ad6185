package dev.leasebox.dist;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasebox.claim.ReleaseAfterCompletion;
import dev.leasebox.cli.embedded.EmbeddedCoordinator;
import dev.leasebox.cli.embedded.EmbeddedCoordinators;
import dev.leasebox.jdbc.LeanDrainScenario;
import dev.leasebox.jdbc.PostgreSqlTestServer;
import dev.leasebox.lease.spi.LeaseBackendSettings;
import dev.leasebox.lease.spi.LeaseBackends;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.Map;

/**
 * Lean row claims end to end on ZooKeeper and Hazelcast ({@link LeanDrainScenario}: four lean workers drain
 * 1,500 entries from PostgreSQL, one halted mid-batch): every entry delivered once, and only what the halted
 * worker emitted and never completed is emitted again, under a higher fence, after its lease lapsed. The
 * coordinators run embedded (a ZooKeeper server; three Hazelcast CP members).
 */
class LeanDrainIT {

    private static final Duration LEASE = Duration.ofSeconds(3);
    private static HikariDataSource admin;
    private static String schema;

    @BeforeAll
    static void openDatabase() {
        admin = PostgreSqlTestServer.dataSource(2);
        schema = PostgreSqlTestServer.newSchema(admin);
    }

    @AfterAll
    static void closeDatabase() {
        if (admin != null) {
            PostgreSqlTestServer.dropSchema(admin, schema);
            admin.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"zookeeper", "hazelcast"})
    void leanWorkersDrainEveryEntryOnceAndDuplicateOnlyWhatAHaltedWorkerNeverCompleted(String backend) throws Exception {
        try (EmbeddedCoordinator coordinator = EmbeddedCoordinators.start(backend, Map.of())) {
            LeanDrainScenario.run(admin, schema, ReleaseAfterCompletion.ALWAYS,
                    namespace -> LeaseBackends.named(backend).open(new LeaseBackendSettings(coordinator.address(), namespace,
                            LEASE, coordinator.clientOptions())),
                    namespace -> { }, LEASE, 1_500);
        }
    }
}
