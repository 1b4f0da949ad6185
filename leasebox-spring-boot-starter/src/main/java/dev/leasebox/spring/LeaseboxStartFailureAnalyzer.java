package dev.leasebox.spring;

import dev.leasebox.jdbc.JdbcOutboxException;
import dev.leasebox.jdbc.MissingClaimColumnsException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Prints a drain that could not start because of its database (the outbox table or a migration is
 * missing, the database cannot be reached) as one description and one action, instead of a trace.
 */
class LeaseboxStartFailureAnalyzer extends AbstractFailureAnalyzer<JdbcOutboxException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, JdbcOutboxException cause) {
        String message = cause.getMessage();
        String action;
        if (cause instanceof MissingMigrationsException missing) {
            action = applyMigrations("--table " + missing.table().qualified());
        } else if (cause instanceof MissingClaimColumnsException || message.contains("does not exist")) {
            action = applyMigrations("--table <leasebox.table>");
        } else if (message.startsWith("Cannot reach the outbox database")) {
            action = "Check spring.datasource.url and its credentials, and that the database is running; "
                    + "or set leasebox.enabled=false.";
        } else {
            action = "Fix what the message names, or set leasebox.enabled=false.";
        }
        return new FailureAnalysis("Leasebox cannot drain its outbox: " + message, action, cause);
    }

    private static String applyMigrations(String table) {
        return "Set leasebox.schema.apply=true to have the starter apply the missing migrations when it starts; or apply "
                + "them once with `leasebox schema --apply --jdbc-url <url> " + table + "`; or with Flyway or Liquibase "
                + "from the scripts the message names (docs/guide/spring-boot.md#the-table). Or set leasebox.enabled=false.";
    }
}
