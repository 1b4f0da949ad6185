package dev.leasebox.cli;

/**
 * A subcommand contributed by another module on the class path (leasebox-bench contributes
 * {@code bench}, the chaos harness {@code chaos}), found with {@link java.util.ServiceLoader} under
 * {@code META-INF/services/dev.leasebox.cli.CommandExtension}. The {@code leasebox} command itself
 * must not depend on those modules: the arrows of the module graph point down.
 */
public interface CommandExtension {

    /** The subcommand's name, e.g. {@code chaos}. */
    String name();

    /** A new picocli command object (annotated with {@code @Command}) for this run. */
    Object newCommand();
}
