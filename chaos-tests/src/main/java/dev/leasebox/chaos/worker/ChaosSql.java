package dev.leasebox.chaos.worker;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.stream.Collectors;

/** The chaos harness's own SQL, from {@code /db/chaos/postgresql/*.sql}, with {@code ${table}} filled in. */
public final class ChaosSql {

    private ChaosSql() {
    }

    public static String load(String name, String qualifiedTable) {
        String path = "/db/chaos/postgresql/" + name;
        try (InputStream in = ChaosSql.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + path + " (is the chaos-tests jar complete?)");
            }
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return text.lines().filter(l -> !l.trim().startsWith("--")).collect(Collectors.joining("\n"))
                    .replace("${table}", qualifiedTable);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
