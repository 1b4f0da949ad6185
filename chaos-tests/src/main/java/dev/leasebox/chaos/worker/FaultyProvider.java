package dev.leasebox.chaos.worker;

import dev.leasebox.provider.Envelope;
import dev.leasebox.provider.OutboxProvider;
import dev.leasebox.provider.ProviderOutcome;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The downstream with faults switched on and off from outside: wraps the real provider (jdbc-inbox)
 * and reads its fault settings from a control file that the harness's provider-fault injector
 * rewrites. Settings (a properties file; absent file or keys mean healthy):
 * <ul>
 *   <li>{@code errorRate}: fraction of emissions refused like an HTTP 503 without delivering (a
 *       retryable error: the entry is retried, and dead-lettered after the drain's max attempts);</li>
 *   <li>{@code timeoutRate}: fraction delivered, then answered only after {@code timeoutMillis} with
 *       a timeout error, so the worker cannot know it was delivered (an {@code info} in the history,
 *       and a duplicate when it is retried);</li>
 *   <li>{@code slowMillis}: extra latency of every emission.</li>
 * </ul>
 * The file is re-read at most every 100 ms.
 */
final class FaultyProvider implements OutboxProvider {

    /** Errors that leave the outcome unknown start with this. */
    static final String TIMEOUT_PREFIX = "timeout";

    private final OutboxProvider downstream;
    private final Path control;
    private volatile Settings settings = Settings.HEALTHY;
    private volatile long readAtNanos;
    private volatile long lastModified = -1;

    FaultyProvider(OutboxProvider downstream, Path control) {
        this.downstream = downstream;
        this.control = control;
    }

    record Settings(double errorRate, double timeoutRate, long timeoutMillis, long slowMillis) {
        static final Settings HEALTHY = new Settings(0, 0, 0, 0);
    }

    @Override
    public ProviderOutcome emit(Envelope envelope) throws Exception {
        Settings s = current();
        if (s.slowMillis() > 0) {
            pause(s.slowMillis());
        }
        double roll = ThreadLocalRandom.current().nextDouble();
        if (roll < s.errorRate()) {
            return ProviderOutcome.retryable("503 Service Unavailable (injected by the chaos harness)");
        }
        if (roll < s.errorRate() + s.timeoutRate()) {
            ProviderOutcome real = downstream.emit(envelope);
            pause(s.timeoutMillis());
            return ProviderOutcome.retryable(TIMEOUT_PREFIX + " after " + s.timeoutMillis()
                    + " ms (injected; the downstream said " + real.getClass().getSimpleName() + ")");
        }
        return downstream.emit(envelope);
    }

    private Settings current() {
        long now = System.nanoTime();
        if (now - readAtNanos < 100_000_000L) {
            return settings;
        }
        readAtNanos = now;
        try {
            if (!Files.exists(control)) {
                settings = Settings.HEALTHY;
                return settings;
            }
            long modified = Files.getLastModifiedTime(control).toMillis() ^ Files.size(control);
            if (modified == lastModified) {
                return settings;
            }
            Properties p = new Properties();
            try (Reader r = Files.newBufferedReader(control)) {
                p.load(r);
            }
            settings = new Settings(Double.parseDouble(p.getProperty("errorRate", "0")),
                    Double.parseDouble(p.getProperty("timeoutRate", "0")),
                    Long.parseLong(p.getProperty("timeoutMillis", "0")),
                    Long.parseLong(p.getProperty("slowMillis", "0")));
            lastModified = modified;
        } catch (IOException | NumberFormatException e) {
            // a half-written control file: keep the settings in force and read it again next time
        }
        return settings;
    }

    private static void pause(long millis) {
        try {
            TimeUnit.MILLISECONDS.sleep(millis); // simulated provider latency, not synchronisation
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
