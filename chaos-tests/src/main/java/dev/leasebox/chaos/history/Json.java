package dev.leasebox.chaos.history;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The little JSON the chaos files need: one flat object per line (strings, integers, decimals,
 * booleans, null), written and read without a library so that worker JVMs stay lean.
 */
public final class Json {

    private Json() {
    }

    /** {@code value} as a JSON string literal. */
    public static String quote(String value) {
        StringBuilder b = new StringBuilder(value.length() + 2).append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    /** A flat object in insertion order: Strings are quoted, Numbers and Booleans written as they are. */
    public static String object(Map<String, ?> fields) {
        StringBuilder b = new StringBuilder("{");
        boolean first = true;
        for (Map.Entry<String, ?> e : fields.entrySet()) {
            if (!first) {
                b.append(',');
            }
            first = false;
            b.append(quote(e.getKey())).append(':').append(value(e.getValue()));
        }
        return b.append('}').toString();
    }

    private static String value(Object v) {
        if (v == null) {
            return "null";
        }
        if (v instanceof Number || v instanceof Boolean) {
            return v.toString();
        }
        return quote(v.toString());
    }

    /**
     * Parses one flat object. Numbers come back as Long when integral, else Double.
     *
     * @throws IllegalArgumentException naming the offset of the first thing that is not flat JSON
     */
    public static Map<String, Object> parseObject(String line) {
        Parser p = new Parser(line);
        Map<String, Object> out = new LinkedHashMap<>();
        p.skip();
        p.expect('{');
        p.skip();
        if (p.peek() == '}') {
            return out;
        }
        while (true) {
            p.skip();
            String key = p.string();
            p.skip();
            p.expect(':');
            p.skip();
            out.put(key, p.value());
            p.skip();
            char c = p.next();
            if (c == '}') {
                return out;
            }
            if (c != ',') {
                throw p.error("expected , or }");
            }
        }
    }

    private static final class Parser {
        private final String s;
        private int i;

        Parser(String s) {
            this.s = s;
        }

        char peek() {
            if (i >= s.length()) {
                throw error("unexpected end");
            }
            return s.charAt(i);
        }

        char next() {
            char c = peek();
            i++;
            return c;
        }

        void skip() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
        }

        void expect(char c) {
            if (next() != c) {
                throw error("expected " + c);
            }
        }

        IllegalArgumentException error(String what) {
            return new IllegalArgumentException("not a flat JSON object at offset " + i + " (" + what + "): " + s);
        }

        Object value() {
            char c = peek();
            if (c == '"') {
                return string();
            }
            if (s.startsWith("null", i)) {
                i += 4;
                return null;
            }
            if (s.startsWith("true", i)) {
                i += 4;
                return Boolean.TRUE;
            }
            if (s.startsWith("false", i)) {
                i += 5;
                return Boolean.FALSE;
            }
            int start = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
                i++;
            }
            String number = s.substring(start, i);
            if (number.isEmpty()) {
                throw error("expected a value");
            }
            if (number.contains(".") || number.contains("e") || number.contains("E")) {
                return Double.parseDouble(number);
            }
            return Long.parseLong(number);
        }

        String string() {
            expect('"');
            StringBuilder b = new StringBuilder();
            while (true) {
                char c = next();
                if (c == '"') {
                    return b.toString();
                }
                if (c != '\\') {
                    b.append(c);
                    continue;
                }
                char e = next();
                switch (e) {
                    case 'n' -> b.append('\n');
                    case 'r' -> b.append('\r');
                    case 't' -> b.append('\t');
                    case 'b' -> b.append('\b');
                    case 'f' -> b.append('\f');
                    case 'u' -> {
                        b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        i += 4;
                    }
                    default -> b.append(e);
                }
            }
        }
    }
}
