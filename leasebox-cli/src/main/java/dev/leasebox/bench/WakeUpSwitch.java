package dev.leasebox.bench;

import dev.leasebox.Leasebox;

/**
 * The one place where the bench's {@code --wake-ups} reaches its workers. This build's drain has no
 * wake-ups: an idle worker polls, its wait doubling from {@code DrainOptions.idlePollMin} (100 ms) to
 * {@code idlePollMax} (5 s), which is what "off" measures. Once {@code Leasebox.Builder.wakeUps(boolean)}
 * exists, {@link #apply} hands the switch to it and {@link #AVAILABLE} becomes true.
 */
final class WakeUpSwitch {

    /** Whether workers can be told to use wake-ups in this build. */
    static final boolean AVAILABLE = false;

    private WakeUpSwitch() {
    }

    /** Sets the worker's wake-ups {@code on} or off. */
    static Leasebox.Builder apply(Leasebox.Builder builder, boolean on) {
        if (on) {
            throw new IllegalArgumentException("--wake-ups true needs a drain with wake-ups, which this build has not: "
                    + "measure with --wake-ups false (idle polling from 100 ms to 5 s)");
        }
        return builder; // off: idle polling, the drain's defaults
    }
}
