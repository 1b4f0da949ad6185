package dev.leasebox.bench;

import dev.leasebox.cli.CommandExtension;

/** Contributes {@code leasebox bench} to the {@code leasebox} command when leasebox-bench is on the class path. */
public final class BenchCommandExtension implements CommandExtension {

    @Override
    public String name() {
        return "bench";
    }

    @Override
    public Object newCommand() {
        return new BenchCommand();
    }
}
