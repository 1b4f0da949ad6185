package dev.leasebox.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/** The {@code leasebox} root command: a transactional-outbox drain with fenced leases. */
@Command(name = "leasebox",
        mixinStandardHelpOptions = true,
        version = "leasebox 0.1.0-SNAPSHOT",
        description = {
                "Drains a transactional outbox with many workers on many nodes, each claiming rows as fenced leases "
                        + "held in ZooKeeper, Redis, Hazelcast or the database itself.",
                "Every option can also be set as an environment variable LEASEBOX_<OPTION> (--jdbc-url -> LEASEBOX_JDBC_URL) "
                        + "or in a properties file (LEASEBOX_CONFIG, default ./leasebox.properties; key jdbc-url=...)."},
        subcommands = {
                DemoCommand.class,
                SchemaCommand.class,
                EnqueueCommand.class,
                WorkerCommand.class,
                StatusCommand.class,
                ConsoleCommand.class,
                RedriveCommand.class,
                PurgeCommand.class,
                CoordinatorCommands.ZooKeeperServer.class,
                CoordinatorCommands.HazelcastMember.class
        })
public final class LeaseboxCommand implements Runnable {

    @Option(names = "--verbose", scope = ScopeType.INHERIT, description = "Print stack traces with errors.")
    boolean verbose;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
