package dev.leasebox.drain;

/**
 * A drain was configured in a way it cannot run safely. The message is one line naming the option
 * and the bad value, and what to do instead. Thrown when the drain or its options are built, never
 * later.
 */
public class DrainConfigurationException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    public DrainConfigurationException(String message) {
        super(message);
    }
}
