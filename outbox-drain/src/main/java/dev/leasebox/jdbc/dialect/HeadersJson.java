package dev.leasebox.jdbc.dialect;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The {@code headers} column's format: a flat JSON object whose values are strings,
 * e.g. {@code {"content-type":"application/json","trace":"abc"}}, keys sorted. Only this shape is
 * written and read; anything else in the column is reported as corrupt rather than guessed at.
 */
final class HeadersJson {

    private HeadersJson() {
    }

    static String write(Map<String, String> headers) {
        StringBuilder out = new StringBuilder("{");
        boolean first = true;
        for (Map.Entry<String, String> e : new TreeMap<>(headers).entrySet()) {
            if (!first) {
                out.append(',');
            }
            first = false;
            quote(e.getKey(), out);
            out.append(':');
            quote(e.getValue(), out);
        }
        return out.append('}').toString();
    }

    static void quote(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    static Map<String, String> read(String json) {
        Parser p = new Parser(json);
        Map<String, String> headers = new LinkedHashMap<>();
        p.skipSpace();
        p.expect('{');
        p.skipSpace();
        if (p.peek() == '}') {
            p.pos++;
        } else {
            while (true) {
                p.skipSpace();
                String key = p.string();
                p.skipSpace();
                p.expect(':');
                p.skipSpace();
                headers.put(key, p.string());
                p.skipSpace();
                char c = p.next();
                if (c == '}') {
                    break;
                }
                if (c != ',') {
                    throw p.corrupt();
                }
            }
        }
        p.skipSpace();
        if (p.pos != json.length()) {
            throw p.corrupt();
        }
        return headers;
    }

    private static final class Parser {
        private final String s;
        private int pos;

        Parser(String s) {
            this.s = s;
        }

        char peek() {
            if (pos >= s.length()) {
                throw corrupt();
            }
            return s.charAt(pos);
        }

        char next() {
            char c = peek();
            pos++;
            return c;
        }

        void expect(char c) {
            if (next() != c) {
                throw corrupt();
            }
        }

        void skipSpace() {
            while (pos < s.length() && Character.isWhitespace(s.charAt(pos))) {
                pos++;
            }
        }

        String string() {
            expect('"');
            StringBuilder out = new StringBuilder();
            while (true) {
                char c = next();
                if (c == '"') {
                    return out.toString();
                }
                if (c != '\\') {
                    out.append(c);
                    continue;
                }
                char e = next();
                switch (e) {
                    case '"', '\\', '/' -> out.append(e);
                    case 'n' -> out.append('\n');
                    case 'r' -> out.append('\r');
                    case 't' -> out.append('\t');
                    case 'b' -> out.append('\b');
                    case 'f' -> out.append('\f');
                    case 'u' -> {
                        if (pos + 4 > s.length()) {
                            throw corrupt();
                        }
                        out.append((char) Integer.parseInt(s.substring(pos, pos + 4), 16));
                        pos += 4;
                    }
                    default -> throw corrupt();
                }
            }
        }

        IllegalStateException corrupt() {
            return new IllegalStateException("outbox headers column is not a flat JSON object of strings at character "
                    + pos + ": " + (s.length() > 80 ? s.substring(0, 80) + "…" : s));
        }
    }
}
