package dev.leasebox;

import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.spi.LeaseBackend;
import dev.leasebox.lease.spi.LeaseBackendSettings;
import dev.leasebox.lease.inmemory.InMemoryLeaseManager;

import java.time.Clock;

/** A lease backend by name for the settings' tests: an in-memory manager, refusing the address {@code nowhere}. */
public final class MemoryLeaseBackend implements LeaseBackend {

    @Override
    public String name() {
        return "memory";
    }

    @Override
    public String addressFormat() {
        return "NAME";
    }

    @Override
    public LeaseManager open(LeaseBackendSettings settings) {
        if (settings.address().equals("nowhere")) {
            throw new dev.leasebox.lease.LeaseManagerException("nothing at " + settings.address()
                    + " within PT10S: check leasebox.zookeeper.connectString");
        }
        return new InMemoryLeaseManager(Clock.systemUTC());
    }
}
