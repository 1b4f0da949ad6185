package dev.leasebox.cli;

import picocli.CommandLine;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * Every option's default, from the environment ({@code --jdbc-url} ← {@code LEASEBOX_JDBC_URL}), then
 * from a properties file ({@code jdbc-url=…}) named by {@code LEASEBOX_CONFIG}, or
 * {@code ./leasebox.properties} when it exists. The command line wins over both; the environment
 * wins over the file.
 */
final class EnvironmentDefaults implements CommandLine.IDefaultValueProvider {

    private final Map<String, String> environment;
    private final Properties file;

    EnvironmentDefaults(Map<String, String> environment, Optional<Path> configFile) {
        this.environment = Map.copyOf(environment);
        this.file = new Properties();
        configFile.ifPresent(path -> {
            try (Reader reader = Files.newBufferedReader(path)) {
                file.load(reader);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the leasebox config file " + path + ": " + e.getMessage(), e);
            }
        });
    }

    /** The properties file to read: {@code LEASEBOX_CONFIG}, else {@code ./leasebox.properties} if present. */
    static Optional<Path> configFile(Map<String, String> environment) {
        String named = environment.get("LEASEBOX_CONFIG");
        if (named != null && !named.isBlank()) {
            Path path = Path.of(named);
            if (!Files.isReadable(path)) {
                throw new IllegalArgumentException("LEASEBOX_CONFIG names " + path + ", which is not a readable file");
            }
            return Optional.of(path);
        }
        Path local = Path.of("leasebox.properties");
        return Files.isReadable(local) ? Optional.of(local) : Optional.empty();
    }

    /** {@code --jdbc-url} → {@code LEASEBOX_JDBC_URL}. */
    static String variableFor(String longName) {
        return "LEASEBOX_" + longName.replaceFirst("^-+", "").replace('-', '_').toUpperCase(Locale.ROOT);
    }

    @Override
    public String defaultValue(CommandLine.Model.ArgSpec argSpec) {
        if (!(argSpec instanceof CommandLine.Model.OptionSpec option)) {
            return argSpec.defaultValue();
        }
        String name = option.longestName();
        String fromEnvironment = environment.get(variableFor(name));
        if (fromEnvironment != null && !fromEnvironment.isBlank()) {
            return fromEnvironment;
        }
        String fromFile = file.getProperty(name.replaceFirst("^-+", ""));
        if (fromFile != null && !fromFile.isBlank()) {
            return fromFile.trim();
        }
        return option.defaultValue();
    }
}
