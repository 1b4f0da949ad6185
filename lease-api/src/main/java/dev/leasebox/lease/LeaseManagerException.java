package dev.leasebox.lease;

/**
 * A lease manager could not talk to its coordinator, or was misconfigured. The message names the
 * coordinator address tried and what to do; a lost race for a key is never an exception (it is
 * simply not granted).
 */
public class LeaseManagerException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public LeaseManagerException(String message) {
        super(message);
    }

    public LeaseManagerException(String message, Throwable cause) {
        super(message, cause);
    }
}
