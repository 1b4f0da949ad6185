package dev.leasebox.docs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Every Java snippet in README.md and docs/ compiles as shown, with its imports. */
class DocSnippetsTest {

    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    private static List<JavaSnippets.Snippet> allSnippets() throws IOException {
        List<Path> markdown = new ArrayList<>();
        markdown.add(ROOT.resolve("README.md"));
        try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).filter(p -> !p.toString().contains("/decisions/")).sorted()
                    .forEach(markdown::add);
        }
        List<JavaSnippets.Snippet> snippets = new ArrayList<>();
        for (Path file : markdown) {
            snippets.addAll(JavaSnippets.in(file));
        }
        return snippets;
    }

    @Test
    void everySnippetShowsItsImportsAndCompiles(@TempDir Path classes) throws IOException {
        List<JavaSnippets.Snippet> snippets = allSnippets();
        assertThat(snippets).as("the Java snippets of README.md and docs/").hasSizeGreaterThan(5);
        assertThat(snippets).as("snippets that show no import").allSatisfy(s ->
                assertThat(s.imports()).as(s.where()).isNotEmpty());
        assertThat(JavaSnippets.compile(snippets, classes)).as("compile errors").isEmpty();
    }

    @Test
    void aSnippetThatDoesNotCompileIsReportedWithItsPlace(@TempDir Path dir) throws IOException {
        Path doc = dir.resolve("broken.md");
        Files.writeString(doc, "text\n\n<!-- given: int given; -->\n```java\nimport java.util.List;\nList<String> l = List.of(given);\n```\n");
        List<JavaSnippets.Snippet> snippets = JavaSnippets.in(doc);
        assertThat(snippets).singleElement().satisfies(s -> assertThat(s.where()).isEqualTo("broken.md:4"));
        assertThat(JavaSnippets.compile(snippets, Files.createDirectory(dir.resolve("out"))))
                .singleElement().asString().startsWith("broken.md:4").contains("incompatible types");
    }
}
