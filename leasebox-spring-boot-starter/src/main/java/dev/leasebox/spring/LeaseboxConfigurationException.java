package dev.leasebox.spring;

/** A {@code leasebox.*} property is missing or wrong; the message names it and says what it needs. */
public class LeaseboxConfigurationException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    public LeaseboxConfigurationException(String message) {
        super(message);
    }

    public LeaseboxConfigurationException(String message, Throwable cause) {
        super(message, cause);
    }
}
