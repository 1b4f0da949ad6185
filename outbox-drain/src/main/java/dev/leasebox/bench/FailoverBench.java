package dev.leasebox.bench;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** Placeholder until the failover mode lands. */
final class FailoverBench {
    FailoverBench(BenchDatabase database, Map<String, BenchCoordinator> coordinators, List<String> backends,
                  Duration leaseTtl, int rounds, PrintWriter out, PrintWriter err) {
    }

    boolean run() {
        throw new UnsupportedOperationException("--failover is not implemented yet");
    }
}
