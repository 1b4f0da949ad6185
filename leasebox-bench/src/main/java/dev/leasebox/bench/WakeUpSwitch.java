package dev.leasebox.bench;

import dev.leasebox.Leasebox;

/**
 * The one place where the bench's {@code --wake-ups} reaches its workers: {@code Leasebox.Builder.wakeUps(boolean)}.
 * Off, an idle worker polls, its wait doubling from {@code DrainOptions.idlePollMin} (100 ms) to
 * {@code idlePollMax} (5 s), every claim loop on its own; on, it looks as soon as it hears of a commit (on
 * PostgreSQL, the V7 trigger's notification, on a connection the worker holds) and only its first loop polls.
 */
final class WakeUpSwitch {

    /** Whether workers can be told to use wake-ups in this build. */
    static final boolean AVAILABLE = true;

    private WakeUpSwitch() {
    }

    /** Sets the worker's wake-ups {@code on} or off. */
    static Leasebox.Builder apply(Leasebox.Builder builder, boolean on) {
        return builder.wakeUps(on);
    }
}
