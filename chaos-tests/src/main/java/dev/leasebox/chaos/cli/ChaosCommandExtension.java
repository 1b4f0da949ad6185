package dev.leasebox.chaos.cli;

import dev.leasebox.cli.CommandExtension;

/** Contributes {@code leasebox chaos} to the {@code leasebox} command when chaos-tests is on the class path. */
public final class ChaosCommandExtension implements CommandExtension {

    @Override
    public String name() {
        return "chaos";
    }

    @Override
    public Object newCommand() {
        return new ChaosCommand();
    }
}
