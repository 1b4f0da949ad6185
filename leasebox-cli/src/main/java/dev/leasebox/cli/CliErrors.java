package dev.leasebox.cli;

/** How the command turns failures into one line and an exit code. */
final class CliErrors {

    static final int EXIT_OK = 0;
    static final int EXIT_CHECK_FAILED = 1;
    static final int EXIT_BAD_INPUT = 2;
    /** {@code worker --exit-when-idle} finished, and dead-lettered at least one entry on the way. */
    static final int EXIT_DEAD_LETTERED = 3;

    private CliErrors() {
    }

    /** Refuses {@code value} of option {@code flag} outside {@code min..max}, naming the flag and the range. */
    static void requireBetween(String flag, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(max == Integer.MAX_VALUE ? flag + " must be at least " + min + ", was " + value
                    : flag + " must be in " + min + ".." + max + ", was " + value);
        }
    }

    /**
     * The failure in one line: our own exceptions already say what failed and what to do, so their
     * message is used as is; a foreign exception is named with its innermost message.
     */
    static String oneLine(Throwable error) {
        Throwable shown = error;
        while (shown.getMessage() == null && shown.getCause() != null) {
            shown = shown.getCause();
        }
        String message = shown.getMessage() == null ? shown.getClass().getSimpleName() : shown.getMessage();
        if (!(shown instanceof IllegalArgumentException) && !(shown instanceof IllegalStateException)
                && !shown.getClass().getName().startsWith("dev.leasebox")) {
            message = shown.getClass().getSimpleName() + ": " + message;
        }
        return message.replace('\n', ' ').strip();
    }
}
