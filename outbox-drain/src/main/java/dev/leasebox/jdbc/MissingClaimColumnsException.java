package dev.leasebox.jdbc;

/**
 * The outbox table lacks the claim columns of V2 while claims are wanted. {@link #remedy()} is the
 * message without the advice for applications that embed the store, for hosts (the {@code leasebox}
 * command) that cannot turn claims off.
 */
public final class MissingClaimColumnsException extends JdbcOutboxException {

    private static final long serialVersionUID = 1L;

    private final String remedy;

    public MissingClaimColumnsException(String remedy, String embeddedAdvice) {
        super(remedy + ", or " + embeddedAdvice);
        this.remedy = remedy;
    }

    /** What is missing and the migration that adds it, in one line. */
    public String remedy() {
        return remedy;
    }
}
