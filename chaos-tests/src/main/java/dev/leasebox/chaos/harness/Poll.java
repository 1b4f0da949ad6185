package dev.leasebox.chaos.harness;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Polling for conditions the harness observes from outside (history lines, listening ports, row counts). */
public final class Poll {

    private Poll() {
    }

    /** Polls {@code condition} every {@code every} until it holds or {@code timeout} passes; true if it held. */
    public static boolean until(BooleanSupplier condition, Duration every, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (condition.getAsBoolean()) {
                return true;
            }
            if (System.nanoTime() >= deadline) {
                return false;
            }
            pause(every);
        }
    }

    /** The polling interval itself (never used as synchronisation: callers re-check their condition). */
    public static void pause(Duration d) {
        try {
            TimeUnit.NANOSECONDS.sleep(d.toNanos());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
