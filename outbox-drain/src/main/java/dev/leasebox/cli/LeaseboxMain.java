package dev.leasebox.cli;

import picocli.CommandLine;

import java.io.PrintWriter;

/**
 * The {@code leasebox} command's entry point. Exit codes: 0 success, 1 a check failed (chaos
 * invariants, bench duplicates), 2 bad input or an unreachable server — one line on stderr, a stack
 * trace only with {@code --verbose}.
 */
public final class LeaseboxMain {

    private LeaseboxMain() {
    }

    public static void main(String[] args) {
        // Hazelcast logs through java.util.logging unless told otherwise; ours goes through SLF4J.
        if (System.getProperty("hazelcast.logging.type") == null) {
            System.setProperty("hazelcast.logging.type", "slf4j");
        }
        int code;
        try {
            code = run(args);
        } catch (Throwable fatal) { // an Error escaping picocli must still end the process, whatever threads remain
            System.err.println("leasebox: " + CliErrors.oneLine(fatal) + " (" + fatal.getClass().getName() + ")");
            if (java.util.Arrays.asList(args).contains("--verbose")) {
                fatal.printStackTrace();
            }
            code = CliErrors.EXIT_BAD_INPUT;
        }
        System.exit(code);
    }

    /** Runs the command line and returns its exit code (tests call this instead of {@link #main}). */
    public static int run(String... args) {
        return commandLine().execute(args);
    }

    /** The command line with every subcommand, extensions included. */
    public static CommandLine commandLine() {
        LeaseboxCommand root = new LeaseboxCommand();
        CommandLine commandLine = new CommandLine(root);
        for (CommandExtension extension : java.util.ServiceLoader.load(CommandExtension.class)) {
            commandLine.addSubcommand(extension.name(), extension.newCommand());
        }
        commandLine.setDefaultValueProvider(new EnvironmentDefaults(System.getenv(), EnvironmentDefaults.configFile(System.getenv())));
        commandLine.setExecutionExceptionHandler((error, cmd, parseResult) -> {
            PrintWriter err = cmd.getErr();
            err.println("leasebox " + cmd.getCommandName() + ": " + CliErrors.oneLine(error));
            if (root.verbose) {
                error.printStackTrace(err);
            } else {
                err.println("(run with --verbose for the stack trace)");
            }
            err.flush();
            return CliErrors.EXIT_BAD_INPUT;
        });
        commandLine.setParameterExceptionHandler((error, argsGiven) -> {
            CommandLine cmd = error.getCommandLine();
            cmd.getErr().println("leasebox " + cmd.getCommandName() + ": " + error.getMessage());
            cmd.getErr().println("(see: leasebox " + cmd.getCommandName() + " --help)");
            return CliErrors.EXIT_BAD_INPUT;
        });
        return commandLine;
    }
}
