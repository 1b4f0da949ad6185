package dev.leasebox.cli;

import dev.leasebox.cli.embedded.EmbeddedCoordinator;
import dev.leasebox.cli.embedded.EmbeddedCoordinators;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/** Standalone coordinators for local multi-process trials (not for production). */
final class CoordinatorCommands {

    private CoordinatorCommands() {
    }

    static int serve(CommandSpec spec, String backend, Map<String, String> options) throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        EmbeddedCoordinator coordinator = EmbeddedCoordinators.start(backend, options);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            coordinator.close();
            stopped.countDown();
        }, "leasebox-coordinator-shutdown"));
        out.println(backend + " coordinator listening at " + coordinator.address() + " (Ctrl-C or SIGTERM to stop)");
        out.flush();
        stopped.await();
        return CliErrors.EXIT_OK;
    }

    @Command(name = "zookeeper-server", mixinStandardHelpOptions = true,
            description = "Run a standalone ZooKeeper server in this process, for local multi-process trials.")
    static final class ZooKeeperServer implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--port", paramLabel = "PORT", defaultValue = "2181", description = "Client port (default: ${DEFAULT-VALUE}).")
        int port;

        @Option(names = "--data-dir", paramLabel = "DIR", description = "Data directory (default: a new temp directory). Never wipe it while workers run: fences would restart.")
        String dataDir;

        @Override
        public Integer call() throws InterruptedException {
            Map<String, String> options = new LinkedHashMap<>();
            options.put("port", Integer.toString(port));
            if (dataDir != null) {
                options.put("data-dir", dataDir);
            }
            return serve(spec, "zookeeper", options);
        }
    }

    @Command(name = "hazelcast-member", mixinStandardHelpOptions = true,
            description = "Run a Hazelcast CP member in this process, for local multi-process trials (start three).")
    static final class HazelcastMember implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--port", paramLabel = "PORT", defaultValue = "5701", description = "Member port (default: ${DEFAULT-VALUE}).")
        int port;

        @Option(names = "--members", paramLabel = "ADDRESSES", defaultValue = "127.0.0.1:5701,127.0.0.1:5702,127.0.0.1:5703",
                description = "All members of the cluster, this one included (default: ${DEFAULT-VALUE}).")
        String members;

        @Option(names = "--cluster-name", paramLabel = "NAME", defaultValue = "leasebox", description = "Cluster name (default: ${DEFAULT-VALUE}).")
        String clusterName;

        @Option(names = "--session-ttl", paramLabel = "SECONDS", defaultValue = "10s",
                description = "CP session time-to-live, whole seconds (default: ${DEFAULT-VALUE}): a crashed client's locks are freed"
                        + " this long after its last heartbeat; workers' --lease-ttl must be at most this minus the heartbeat.")
        String sessionTtl;

        @Option(names = "--heartbeat", paramLabel = "SECONDS", defaultValue = "1s",
                description = "CP session heartbeat interval, whole seconds (default: ${DEFAULT-VALUE}).")
        String heartbeat;

        @Override
        public Integer call() throws InterruptedException {
            Map<String, String> options = new LinkedHashMap<>();
            options.put("port", Integer.toString(port));
            options.put("members", members);
            options.put("cluster-name", clusterName);
            options.put("session-ttl", sessionTtl);
            options.put("heartbeat", heartbeat);
            return serve(spec, "hazelcast", options);
        }
    }
}
