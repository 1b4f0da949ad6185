package dev.leasebox.testing;

import dev.leasebox.Leasebox;
import dev.leasebox.drain.OutboxDrain;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/**
 * Tooling, not API: stops a drain as a crash would, inside one process (the demo's killed worker, tests of
 * takeover). No further completion, release or renewal is sent; the claims the drain holds lapse at their expiry
 * and are reclaimed by others with higher fences. A real shutdown is {@link Leasebox#close()}.
 */
public final class Crash {

    private static final Method HALT = haltMethod();

    private Crash() {
    }

    /** Halts {@code drain}'s engine; returns when its threads are gone (at most a few seconds per thread). */
    public static void halt(Leasebox drain) {
        halt(drain.engine());
    }

    /** Halts {@code engine}; returns when its threads are gone (at most a few seconds per thread). */
    public static void halt(OutboxDrain engine) {
        try {
            HALT.invoke(engine);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("OutboxDrain's halt cannot be reached from dev.leasebox.testing: "
                    + "they must be in one module", e);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException("halting " + engine.options().owner() + " failed", e.getCause());
        }
    }

    /** The engine's halt is not its API: reached here, in the engine's own module, and nowhere else. */
    private static Method haltMethod() {
        try {
            Method halt = OutboxDrain.class.getDeclaredMethod("halt");
            halt.setAccessible(true);
            return halt;
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException("OutboxDrain has no halt(): Crash and the engine are out of step", e);
        }
    }
}
