package dev.leasebox.cli;

import picocli.CommandLine;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

/**
 * Every option's default, from the environment ({@code --jdbc-url} ← {@code LEASEBOX_JDBC_URL}), then
 * from a properties file ({@code jdbc-url=…}) named by {@code LEASEBOX_CONFIG}, or
 * {@code ./leasebox.properties} when it exists. The command line wins over both; the environment
 * wins over the file.
 */
final class EnvironmentDefaults implements CommandLine.IDefaultValueProvider {

    private final Map<String, String> environment;
    private final Properties file;
    private final Optional<Path> configFile;

    EnvironmentDefaults(Map<String, String> environment, Optional<Path> configFile) {
        this.environment = Map.copyOf(environment);
        this.file = new Properties();
        this.configFile = configFile;
        configFile.ifPresent(path -> {
            try (Reader reader = Files.newBufferedReader(path)) {
                file.load(reader);
            } catch (IOException | IllegalArgumentException e) {
                throw new IllegalArgumentException("cannot read the leasebox config file " + path + ": " + e.getMessage()
                        + " (a properties file: one option a line, e.g. jdbc-url=jdbc:postgresql://…)", e);
            }
        });
    }

    /**
     * Refuses a config file key that names no option of any command: a misspelt key would otherwise be
     * ignored and its option left at the default.
     */
    void checkKeys(CommandLine root) {
        Set<String> known = new TreeSet<>();
        collectOptionNames(root, known);
        for (String key : file.stringPropertyNames()) {
            if (!known.contains(key)) {
                String near = closest(key, known);
                throw new IllegalArgumentException(configFile.map(Path::toString).orElse("the config file") + ": unknown key '"
                        + key + "' (" + (near == null ? "keys are option names without --, e.g. jdbc-url" : "did you mean " + near + "?")
                        + ")");
            }
        }
    }

    private static void collectOptionNames(CommandLine command, Set<String> names) {
        for (CommandLine.Model.OptionSpec option : command.getCommandSpec().options()) {
            names.add(option.longestName().replaceFirst("^-+", ""));
        }
        command.getSubcommands().values().forEach(sub -> collectOptionNames(sub, names));
    }

    /** The known name within two edits of {@code key}, nearest first; null when none is that near. */
    private static String closest(String key, Set<String> known) {
        String best = null;
        int bestDistance = 3;
        for (String name : known) {
            int distance = distance(key, name);
            if (distance < bestDistance) {
                best = name;
                bestDistance = distance;
            }
        }
        return best;
    }

    private static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }

    /** The properties file to read: {@code LEASEBOX_CONFIG}, else {@code ./leasebox.properties} if present. */
    static Optional<Path> configFile(Map<String, String> environment) {
        String named = environment.get("LEASEBOX_CONFIG");
        if (named != null && !named.isBlank()) {
            Path path = Path.of(named);
            if (!Files.isReadable(path)) {
                throw new IllegalArgumentException("LEASEBOX_CONFIG names " + path
                        + ", which is not a readable file: point it at a properties file or unset it");
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
