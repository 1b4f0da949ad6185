package dev.leasebox.docs;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code ```java} blocks of a Markdown file, compiled as a reader would paste them. A block shows
 * its imports; what it takes as given (a {@code dataSource}, a configured client) is declared in an
 * HTML comment right above it, {@code <!-- given: DataSource dataSource; -->}, which readers do not
 * see. A block of statements is compiled as a method body whose class declares the given members; a
 * block that declares types is compiled as a file of its own, the given text following it (helper
 * types the block refers to).
 */
final class JavaSnippets {

    private static final Pattern BLOCK = Pattern.compile("(?:<!--\\s*given:(.*?)-->\\s*\\n)?```java\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern TYPE_DECLARATION = Pattern.compile(
            "^(?:@\\w+(?:\\(.*\\))?\\s*\\n)*(?:(?:public|final|abstract|sealed)\\s+)*(?:class|record|interface|enum)\\s",
            Pattern.MULTILINE);

    /** One block: where it is, its code and its hidden given text. */
    record Snippet(Path file, int line, String code, String given) {

        List<String> imports() {
            return code.lines().filter(l -> l.startsWith("import ")).toList();
        }

        String body() {
            return String.join("\n", code.lines().filter(l -> !l.startsWith("import ")).toList());
        }

        boolean declaresTypes() {
            return TYPE_DECLARATION.matcher(body()).find();
        }

        String where() {
            return file.getFileName() + ":" + line;
        }
    }

    private JavaSnippets() {
    }

    static List<Snippet> in(Path markdown) throws IOException {
        String text = Files.readString(markdown);
        List<Snippet> snippets = new ArrayList<>();
        Matcher m = BLOCK.matcher(text);
        while (m.find()) {
            int line = (int) text.substring(0, m.start(2)).lines().count();
            snippets.add(new Snippet(markdown, line, m.group(2), m.group(1) == null ? "" : m.group(1).trim()));
        }
        return snippets;
    }

    /** The compilation unit of {@code snippet} in package {@code pkg}. */
    static String source(Snippet snippet, String pkg) {
        StringBuilder unit = new StringBuilder("package ").append(pkg).append(";\n");
        snippet.imports().forEach(i -> unit.append(i).append('\n'));
        if (snippet.declaresTypes()) {
            unit.append(snippet.body()).append('\n').append(snippet.given()).append('\n');
        } else {
            unit.append("abstract class Snippet {\n").append(snippet.given()).append('\n')
                    .append("void snippet() throws Exception {\n").append(snippet.body()).append("\n}\n}\n");
        }
        return unit.toString();
    }

    /** Compiles every snippet (each in a package of its own) into {@code out}; the errors, each naming its snippet. */
    static List<String> compile(List<Snippet> snippets, Path out) throws IOException {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        List<JavaFileObject> units = new ArrayList<>();
        List<Snippet> byUnit = new ArrayList<>();
        for (int i = 0; i < snippets.size(); i++) {
            Snippet s = snippets.get(i);
            String pkg = "snippet" + i;
            String name = s.declaresTypes() ? firstTypeName(s) : "Snippet";
            units.add(new Source(URI.create("string:///" + pkg + "/" + name + ".java"), source(s, pkg)));
            byUnit.add(s);
        }
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
            List<String> options = List.of("--release", "17", "-proc:none", "-classpath", classpath, "-d", out.toString());
            javac.getTask(null, files, diagnostics, options, null, units).call();
        }
        List<String> errors = new ArrayList<>();
        for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
            if (d.getKind() != Diagnostic.Kind.ERROR) {
                continue;
            }
            int unit = units.indexOf(d.getSource());
            String where = unit < 0 ? "?" : byUnit.get(unit).where();
            errors.add(where + " (line " + d.getLineNumber() + " of the compiled unit): " + d.getMessage(Locale.ROOT)
                    + (unit < 0 ? "" : "\n" + numbered(((Source) units.get(unit)).code)));
        }
        return errors;
    }

    private static String firstTypeName(Snippet s) {
        Matcher m = Pattern.compile("(?:class|record|interface|enum)\\s+(\\w+)").matcher(s.body());
        return m.find() ? m.group(1) : "Snippet";
    }

    private static String numbered(String code) {
        StringBuilder b = new StringBuilder();
        List<String> lines = code.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            b.append(String.format("%4d  %s%n", i + 1, lines.get(i)));
        }
        return b.toString();
    }

    private static final class Source extends SimpleJavaFileObject {
        final String code;

        Source(URI uri, String code) {
            super(uri, Kind.SOURCE);
            this.code = code;
        }

        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return code;
        }
    }
}
