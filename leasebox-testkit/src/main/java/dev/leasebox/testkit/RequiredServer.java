package dev.leasebox.testkit;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The one pattern every server test follows to find its server:
 * <ol>
 *   <li>the server named by an environment variable ({@code REDIS_URL}, {@code LEASEBOX_JDBC_URL}, …), if set;</li>
 *   <li>else one started locally on a free port, from an installed binary or the Maven jar;</li>
 *   <li>else, where a Docker engine answers, a Testcontainers container;</li>
 *   <li>else a failure with one line saying what to install. A missing server never skips a test.</li>
 * </ol>
 * Fixtures use these helpers for steps 1, 2 and 4.
 */
public final class RequiredServer {

    private RequiredServer() {
    }

    /** The value of {@code variable} when set and not blank. */
    public static Optional<String> fromEnvironment(String variable) {
        String value = System.getenv(variable);
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.trim());
    }

    /** The first of {@code candidates} that exists and is executable, or a PATH lookup of the first name. */
    public static Optional<Path> binary(String name, String... candidates) {
        for (String candidate : candidates) {
            Path path = Path.of(candidate);
            if (Files.isExecutable(path)) {
                return Optional.of(path);
            }
        }
        String pathVariable = System.getenv("PATH");
        if (pathVariable != null) {
            for (String dir : pathVariable.split(java.io.File.pathSeparator)) {
                Path path = Path.of(dir, name);
                if (Files.isExecutable(path)) {
                    return Optional.of(path);
                }
            }
        }
        return Optional.empty();
    }

    /** Whether a Docker engine answers here (for the Testcontainers step). */
    public static boolean dockerAvailable() {
        return Files.exists(Path.of("/var/run/docker.sock")) || System.getenv("DOCKER_HOST") != null;
    }

    /** The failure when no step found a server: one line naming what to set or install. */
    public static IllegalStateException missing(String server, String variable, String install) {
        return new IllegalStateException(server + " is needed by this test and none was found: set " + variable
                + ", or install it (" + install + "), or run a Docker engine for Testcontainers.");
    }
}
