package dev.leasebox.wakeup;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The drains of this JVM by outbox table, for the writers of this JVM to wake: the wake-up that costs no
 * round trip and works on every database. A writer signals the table it wrote to; every drain of that
 * table in the JVM gets the hint on the writer's thread (a drain only flags it, so this takes microseconds).
 *
 * <p>Tables are matched by name as configured ({@code schema.table} or {@code table}), ignoring case: a
 * writer of {@code orders_outbox} and a drain of {@code public.orders_outbox} do not meet here, and two
 * databases with a table of one name share hints (an extra cycle, never a wrong claim: hints are hints).
 */
public final class LocalWakeUps {

    private static final Map<String, List<Consumer<WakeUp>>> DRAINS = new ConcurrentHashMap<>();

    private LocalWakeUps() {
    }

    /** Tells every drain of {@code table} in this JVM that entries may be waiting. */
    public static void signal(String table, WakeUp hint) {
        Objects.requireNonNull(hint, "hint");
        List<Consumer<WakeUp>> drains = DRAINS.get(key(table));
        if (drains != null) {
            drains.forEach(drain -> drain.accept(hint));
        }
    }

    /** Registers {@code drain} for the hints of {@code table} until the returned registration is closed. */
    public static Registration subscribe(String table, Consumer<WakeUp> drain) {
        Objects.requireNonNull(drain, "drain");
        String key = key(table);
        DRAINS.compute(key, (k, drains) -> {
            List<Consumer<WakeUp>> list = drains != null ? drains : new CopyOnWriteArrayList<>();
            list.add(drain);
            return list;
        });
        return () -> DRAINS.computeIfPresent(key, (k, drains) -> {
            drains.remove(drain);
            return drains.isEmpty() ? null : drains;
        });
    }

    private static String key(String table) {
        return Objects.requireNonNull(table, "table").toLowerCase(Locale.ROOT);
    }

    /** A subscription; closing it twice is harmless. */
    @FunctionalInterface
    public interface Registration extends AutoCloseable {
        @Override
        void close();
    }
}
