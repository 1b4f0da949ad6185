package dev.leasebox.lease.spi;

import java.io.IOException;
import java.io.InputStream;
import java.util.Objects;
import java.util.Properties;

/**
 * A client library on the class path (Jedis, Hazelcast, kafka-clients) is a version a Leasebox module cannot
 * run with. The application's dependency management (Spring Boot's, a platform BOM) often chooses that
 * version rather than Leasebox, so the message says in one line which version was found and which to pin;
 * {@link #pinProperty()} and {@link #pinVersion()} name the build property that pins it under Spring Boot's
 * dependency management, for hosts that print their own advice (the Spring Boot starter's failure analysis).
 */
public class ClientVersionException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String library;
    private final String found;
    private final String pinProperty;
    private final String pinVersion;

    /**
     * @param message     one line: what needs which version, what the class path has, what to pin
     * @param library     the library's Maven coordinates without version, e.g. {@code redis.clients:jedis}
     * @param found       the version found on the class path (or a description such as "older than 7")
     * @param pinProperty the version property Spring Boot's dependency management reads, e.g. {@code jedis.version}
     * @param pinVersion  the version to set it to: the one the module is built and tested with
     */
    public ClientVersionException(String message, String library, String found, String pinProperty, String pinVersion) {
        super(Objects.requireNonNull(message, "message"));
        this.library = Objects.requireNonNull(library, "library");
        this.found = Objects.requireNonNull(found, "found");
        this.pinProperty = Objects.requireNonNull(pinProperty, "pinProperty");
        this.pinVersion = Objects.requireNonNull(pinVersion, "pinVersion");
    }

    /**
     * The version a library's jar declares in the properties resource {@code resource} (its
     * {@code version} key), or {@code otherwise} when the resource or the key is missing: for the messages.
     */
    public static String declaredVersion(ClassLoader loader, String resource, String otherwise) {
        try (InputStream in = loader.getResourceAsStream(resource)) {
            if (in != null) {
                Properties properties = new Properties();
                properties.load(in);
                String version = properties.getProperty("version");
                if (version != null && !version.isBlank()) {
                    return version.strip();
                }
            }
        } catch (IOException e) {
            // the version is only for the message
        }
        return otherwise;
    }

    /** The library's Maven coordinates without version, e.g. {@code redis.clients:jedis}. */
    public String library() {
        return library;
    }

    /** The version on the class path, as far as it can be told. */
    public String found() {
        return found;
    }

    /** The build property that pins the library under Spring Boot's dependency management, e.g. {@code jedis.version}. */
    public String pinProperty() {
        return pinProperty;
    }

    /** The version to pin: the one the module is built and tested with. */
    public String pinVersion() {
        return pinVersion;
    }
}
