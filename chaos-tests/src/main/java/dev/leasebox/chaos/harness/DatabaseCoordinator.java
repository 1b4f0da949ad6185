package dev.leasebox.chaos.harness;

import dev.leasebox.chaos.fault.FaultLog;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/** The {@code database} backend: leases are the rows' own claim columns; no separate server. */
public final class DatabaseCoordinator implements Coordinator {

    @Override
    public String backend() {
        return "database";
    }

    @Override
    public String address() {
        return "";
    }

    @Override
    public Map<String, String> backendOptions() {
        return Map.of();
    }

    @Override
    public List<Integer> clientPorts() {
        return List.of();
    }

    @Override
    public void restart(FaultLog faults, Duration downtime) {
        throw new UnsupportedOperationException("the database backend's coordinator is the shared PostgreSQL server, "
                + "which the chaos harness does not restart");
    }

    @Override
    public void close() {
    }
}
