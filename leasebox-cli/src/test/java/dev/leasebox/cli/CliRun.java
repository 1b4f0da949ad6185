package dev.leasebox.cli;

import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import java.util.Optional;

/** Runs the {@code leasebox} command in this JVM and keeps what it printed. */
record CliRun(int exitCode, String out, String err) {

    static CliRun of(String... args) {
        return withEnvironment(Map.of(), args);
    }

    static CliRun withEnvironment(Map<String, String> environment, String... args) {
        CommandLine commandLine = LeaseboxMain.commandLine();
        commandLine.setDefaultValueProvider(new EnvironmentDefaults(environment, Optional.empty()));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        int code = commandLine.execute(args);
        return new CliRun(code, out.toString(), err.toString());
    }

    /** As {@code leasebox} itself runs: defaults from {@code environment} and the config file it names. */
    static CliRun withConfig(Map<String, String> environment, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = LeaseboxMain.run(environment, new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new CliRun(code, out.toString(), err.toString());
    }

    /** The non-blank lines of stderr. */
    long errLines() {
        return err.lines().filter(l -> !l.isBlank()).count();
    }
}
