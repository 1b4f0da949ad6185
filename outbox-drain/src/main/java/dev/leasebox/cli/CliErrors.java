package dev.leasebox.cli;

/** How the command turns failures into one line and an exit code. */
final class CliErrors {

    static final int EXIT_OK = 0;
    static final int EXIT_CHECK_FAILED = 1;
    static final int EXIT_BAD_INPUT = 2;

    private CliErrors() {
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
