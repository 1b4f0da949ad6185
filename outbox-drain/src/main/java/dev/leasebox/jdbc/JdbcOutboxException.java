package dev.leasebox.jdbc;

/**
 * A failure of the JDBC outbox store that the caller cannot fix by retrying the same call: the
 * database is unreachable, the schema is missing or incomplete, or a statement failed. The message
 * is one line saying what failed and what to do.
 */
public class JdbcOutboxException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public JdbcOutboxException(String message) {
        super(message);
    }

    public JdbcOutboxException(String message, Throwable cause) {
        super(message, cause);
    }
}
