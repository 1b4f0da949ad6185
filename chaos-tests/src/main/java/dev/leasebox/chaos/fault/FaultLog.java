package dev.leasebox.chaos.fault;

import dev.leasebox.chaos.history.FaultEvent;
import dev.leasebox.chaos.history.JsonLinesFile;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The harness's own history: every fault begun and ended, on the common clock (the harness's wall
 * clock, which the harness never skews), one JSON line each, echoed as progress.
 */
public final class FaultLog implements AutoCloseable {

    private final JsonLinesFile file;
    private final PrintStream progress;
    private final long startedAt = System.currentTimeMillis();
    private final AtomicInteger injected = new AtomicInteger();

    public FaultLog(Path path, PrintStream progress) {
        this.file = JsonLinesFile.append(path);
        this.progress = progress;
    }

    public void record(String fault, String target, String detail) {
        FaultEvent event = new FaultEvent(System.currentTimeMillis(), fault, target, detail);
        file.append(event.toJson());
        if (event.isInjection()) {
            injected.incrementAndGet();
        }
        progress.printf("  [%5.1fs] %-17s %-14s %s%n", (event.t() - startedAt) / 1000.0, fault, target, detail);
        progress.flush();
    }

    public int injected() {
        return injected.get();
    }

    public Path path() {
        return file.path();
    }

    @Override
    public void close() {
        file.close();
    }
}
