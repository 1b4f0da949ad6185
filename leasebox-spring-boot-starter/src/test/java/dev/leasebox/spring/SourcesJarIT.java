package dev.leasebox.spring;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * The published sources jar holds every source of the starter jar: src/main/java and the Boot 3.5 health indicator
 * of src/boot3/java, compiled in a second pass (pom.xml). Runs after packaging, on the jar; failsafe names it.
 */
class SourcesJarIT {

    @Test
    void theSourcesJarHoldsTheMainAndTheBoot3Sources() throws IOException {
        assumeFalse(Boolean.getBoolean("leasebox.it.sources-skipped"), "the sources jar is skipped (-Dmaven.source.skip)");
        Path jar = Path.of(System.getProperty("leasebox.it.sources-jar", "(system property leasebox.it.sources-jar unset)"));
        assertThat(jar).as("the starter's sources jar (built by `mvn package`)").isRegularFile();
        Set<String> entries;
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            entries = zip.stream().map(ZipEntry::getName).collect(Collectors.toSet());
        }
        List<String> boot3 = sources(Path.of("src/boot3/java"));
        assertThat(boot3).contains("dev/leasebox/spring/LeaseboxBoot3HealthIndicator.java");
        assertThat(entries).containsAll(boot3).containsAll(sources(Path.of("src/main/java")))
                .contains("META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports");
    }

    /** The .java files under {@code root}, as paths relative to it with '/'. */
    private static List<String> sources(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(f -> f.toString().endsWith(".java"))
                    .map(f -> root.relativize(f).toString().replace('\\', '/')).sorted().toList();
        }
    }
}
