package dev.leasebox.cli;

import dev.leasebox.drain.OutboxProvider;
import dev.leasebox.drain.ProviderOutcome;
import dev.leasebox.provider.ProviderFactory;

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
