package dev.leasebox.dist;

import dev.leasebox.cli.LeaseboxMain;
import dev.leasebox.testkit.ManagedProcess;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Leasebox processes started from this JVM's class path: workers and coordinators, stopped by pid. */
final class WorkerFleet implements AutoCloseable {

    private final List<ManagedProcess> processes = new ArrayList<>();

    ManagedProcess start(String name, List<String> args) {
        ManagedProcess process = ManagedProcess.startJava(name, LeaseboxMain.class,
                List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"), args);
        processes.add(process);
        return process;
    }

    /** Stops {@code process} with the fleet. */
    ManagedProcess adopt(ManagedProcess process) {
        processes.add(process);
        return process;
    }

    /** Waits for every process named in {@code workers} to exit by itself and returns their exit codes. */
    List<Integer> awaitExit(List<ManagedProcess> workers, Duration timeout) {
        List<Integer> codes = new ArrayList<>();
        for (ManagedProcess worker : workers) {
            codes.add(worker.awaitExit(timeout));
        }
        return codes;
    }

    @Override
    public void close() {
        processes.forEach(ManagedProcess::close);
    }
}
