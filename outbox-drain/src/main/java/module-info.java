/**
 * The Leasebox library: {@link dev.leasebox.Leasebox#drain(javax.sql.DataSource)}, the entry point, and what its
 * users set and call. The claim strategies ({@code claim.leased}, {@code claim.partition}, {@code claim.grouped})
 * and the JDBC internals ({@code jdbc.dialect}, {@code jdbc.store}, {@code jdbc.lease}) are not exported
 * (decisions 0044 and 0045).
 */
module dev.leasebox {
    requires transitive dev.leasebox.api;
    requires transitive java.sql;
    requires java.net.http;
    requires org.slf4j;
    requires static micrometer.core;
    requires static org.postgresql.jdbc;

    exports dev.leasebox;
    exports dev.leasebox.claim;
    exports dev.leasebox.drain;
    exports dev.leasebox.jdbc;
    exports dev.leasebox.metrics;
    exports dev.leasebox.provider;
    exports dev.leasebox.wakeup;
    exports dev.leasebox.testing;

    uses dev.leasebox.provider.ProviderFactory;

    provides dev.leasebox.provider.ProviderFactory with
            dev.leasebox.provider.BuiltInProviders.Log,
            dev.leasebox.provider.BuiltInProviders.Noop,
            dev.leasebox.provider.BuiltInProviders.Http,
            dev.leasebox.provider.BuiltInProviders.JdbcInbox;
}
