package dev.leasebox.cli;

import picocli.CommandLine;

import dev.leasebox.jdbc.MissingClaimColumnsException;

import java.io.PrintWriter;
import java.util.List;
import java.util.Map;

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
        return run(System.getenv(), new PrintWriter(System.out, true), new PrintWriter(System.err, true), args);
    }

    /**
     * Runs the command line with option defaults from {@code environment} and the config file it
     * names; a config file that cannot be read or has keys no option knows is one line and exit 2.
     */
    static int run(Map<String, String> environment, PrintWriter out, PrintWriter err, String... args) {
        CommandLine commandLine = withoutDefaults();
        commandLine.setOut(out);
        commandLine.setErr(err);
        try {
            commandLine.setDefaultValueProvider(defaults(commandLine, environment));
        } catch (IllegalArgumentException e) {
            err.println("leasebox: " + e.getMessage());
            err.flush();
            return CliErrors.EXIT_BAD_INPUT;
        }
        return commandLine.execute(args);
    }

    private static EnvironmentDefaults defaults(CommandLine commandLine, Map<String, String> environment) {
        EnvironmentDefaults defaults = new EnvironmentDefaults(environment, EnvironmentDefaults.configFile(environment));
        defaults.checkKeys(commandLine);
        return defaults;
    }

    /** The command line with every subcommand, extensions included, option defaults from the environment. */
    public static CommandLine commandLine() {
        CommandLine commandLine = withoutDefaults();
        commandLine.setDefaultValueProvider(defaults(commandLine, System.getenv()));
        return commandLine;
    }

    private static CommandLine withoutDefaults() {
        LeaseboxCommand root = new LeaseboxCommand();
        CommandLine commandLine = new CommandLine(root);
        for (CommandExtension extension : java.util.ServiceLoader.load(CommandExtension.class)) {
            commandLine.addSubcommand(extension.name(), extension.newCommand());
        }
        OptionSections.install(commandLine.getSubcommands().get("worker"), List.of("--jdbc-url", "--table", "--backend",
                        "--zookeeper", "--redis", "--hazelcast", "--namespace", "--provider", "--concurrency", "--batch",
                        "--lease-ttl", "--granularity", "--exit-when-idle", "--metrics-port", "--owner", "--help",
                        "--version"),
                "%nTuning (the defaults suit most fleets):%n");
        commandLine.setCaseInsensitiveEnumValuesAllowed(true);
        commandLine.setExecutionStrategy(parseResult -> {
            // "leasebox nosuch --help" would print the top-level help and succeed: an unknown word is an error first
            if (!parseResult.unmatched().isEmpty() && !parseResult.hasSubcommand()) {
                throw new CommandLine.UnmatchedArgumentException(parseResult.commandSpec().commandLine(), parseResult.unmatched());
            }
            return new CommandLine.RunLast().execute(parseResult);
        });
        commandLine.setExecutionExceptionHandler((error, cmd, parseResult) -> {
            PrintWriter err = cmd.getErr();
            String message = error instanceof MissingClaimColumnsException missing
                    ? missing.remedy() + " with your migration tool, or run `leasebox schema --apply`"
                    : CliErrors.oneLine(error);
            err.println("leasebox " + cmd.getCommandName() + ": " + message);
            if (root.verbose) {
                error.printStackTrace(err);
            } else if (!(error instanceof IllegalArgumentException || error instanceof MissingClaimColumnsException)) {
                // bad input is explained by its message alone; a trace helps only with a failure from elsewhere
                err.println("(run with --verbose for the stack trace)");
            }
            err.flush();
            return CliErrors.EXIT_BAD_INPUT;
        });
        commandLine.setParameterExceptionHandler((reported, argsGiven) -> {
            CommandLine cmd = reported.getCommandLine();
            // "worker --btach 5" lacks --jdbc-url because of the typo: name the typo, not the missing option
            CommandLine.ParameterException error = reported instanceof CommandLine.MissingParameterException
                    && !cmd.getUnmatchedArguments().isEmpty()
                    ? new CommandLine.UnmatchedArgumentException(cmd, cmd.getUnmatchedArguments()) : reported;
            if (cmd.getParent() == null && error instanceof CommandLine.UnmatchedArgumentException unmatched
                    && !unmatched.getUnmatched().isEmpty() && !unmatched.getUnmatched().get(0).startsWith("-")) {
                if ("chaos".equals(unmatched.getUnmatched().get(0))) {
                    cmd.getErr().println("leasebox: the chaos suites ship in leasebox-chaos.jar, not in leasebox.jar: run "
                            + "./leasebox chaos … from a checkout (it builds chaos-tests/target/leasebox-chaos.jar), or "
                            + "java -jar chaos-tests/target/leasebox-chaos.jar chaos …");
                    return CliErrors.EXIT_BAD_INPUT;
                }
                if ("bench".equals(unmatched.getUnmatched().get(0))) {
                    cmd.getErr().println("leasebox: the bench ships in leasebox-bench.jar, not in leasebox.jar: run "
                            + "./leasebox bench … from a checkout (it builds leasebox-bench/target/leasebox-bench.jar), or "
                            + "java -jar leasebox-bench/target/leasebox-bench.jar bench …");
                    return CliErrors.EXIT_BAD_INPUT;
                }
                cmd.getErr().println("leasebox: unknown command '" + unmatched.getUnmatched().get(0) + "': choose one of "
                        + String.join(", ", cmd.getSubcommands().keySet()) + " (see: leasebox --help)");
                return CliErrors.EXIT_BAD_INPUT;
            }
            if (cmd.getParent() == null) {
                cmd.getErr().println("leasebox: " + error.getMessage());
                cmd.getErr().println("(see: leasebox --help)");
                return CliErrors.EXIT_BAD_INPUT;
            }
            cmd.getErr().println("leasebox " + cmd.getCommandName() + ": " + error.getMessage());
            cmd.getErr().println("(see: leasebox " + cmd.getCommandName() + " --help)");
            return CliErrors.EXIT_BAD_INPUT;
        });
        return commandLine;
    }
}
