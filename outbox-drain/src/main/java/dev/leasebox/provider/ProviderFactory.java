package dev.leasebox.provider;


import javax.sql.DataSource;
import java.time.Clock;
import java.util.function.Function;

/**
 * Opens a provider by name, for hosts that name providers in text ({@code leasebox worker --provider
 * NAME:TARGET}): found with {@link java.util.ServiceLoader}, so a jar that registers one in
 * {@code META-INF/services/dev.leasebox.provider.ProviderFactory} adds a provider to the command without
 * changing it. A service that embeds the drain needs none of this: it hands its provider to
 * {@code Leasebox.drain(…).provider(…)}.
 */
public interface ProviderFactory {

    /** The name before the first colon: {@code http}, {@code rabbitmq}; lower case, unique on the class path. */
    String name();

    /** What follows the colon, for help and errors ({@code URL}); empty when the provider takes no target. */
    String targetFormat();

    /**
     * Checks the target's form without opening anything, so that a host can refuse a malformed one before it
     * connects to the database; throws {@link IllegalArgumentException} with one line naming the expected form.
     * The default accepts every target and leaves the checking to {@link #open}.
     */
    default void check(String target) {
    }

    /**
     * Opens the provider; fails at once, with one line naming the target (no password), when the target is
     * malformed or cannot be reached.
     */
    OutboxProvider open(String target, Context context);

    /**
     * What a host lends the providers it opens.
     *
     * @param clock       the drain's clock
     * @param dataSources opens a pool for a JDBC URL with the host's own pooling and error messages
     */
    record Context(Clock clock, Function<String, DataSource> dataSources) {
    }
}
