package dev.leasebox.cli;

import dev.leasebox.provider.OutboxProvider;
import dev.leasebox.provider.ProviderFactory;
import dev.leasebox.provider.ProviderOutcome;

/** A provider a user's jar would add: registered in this module's test resources only. */
public final class EchoProviderFactory implements ProviderFactory {

    @Override
    public String name() {
        return "echo";
    }

    @Override
    public String targetFormat() {
        return "TEXT";
    }

    @Override
    public OutboxProvider open(String target, Context context) {
        return envelope -> new ProviderOutcome.Delivered(target);
    }
}
