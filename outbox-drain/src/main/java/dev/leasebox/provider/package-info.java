/**
 * Where entries go: an {@link dev.leasebox.provider.OutboxProvider} receives each entry as an
 * {@link dev.leasebox.provider.Envelope} and answers with a {@link dev.leasebox.provider.ProviderOutcome};
 * an {@link dev.leasebox.provider.ErrorClassifier} says which of its exceptions are permanent. The built-in
 * providers (log, HTTP, a JDBC inbox) and the {@link dev.leasebox.provider.ProviderFactory} SPI that opens
 * providers by name are here too.
 */
package dev.leasebox.provider;
