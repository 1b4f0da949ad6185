package dev.leasebox.console;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;

/** What the console answers: a status, a content type, a body and extra headers (Location, Allow). */
public record ConsoleResponse(int status, String contentType, String body, Map<String, String> headers) {

    public ConsoleResponse {
        Objects.requireNonNull(contentType, "contentType");
        Objects.requireNonNull(body, "body");
        headers = Map.copyOf(headers);
    }

    static ConsoleResponse html(int status, String body) {
        return new ConsoleResponse(status, "text/html; charset=utf-8", body, Map.of("Cache-Control", "no-store"));
    }

    static ConsoleResponse text(int status, String body) {
        return new ConsoleResponse(status, "text/plain; charset=utf-8", body + "\n", Map.of("Cache-Control", "no-store"));
    }

    /** 303 See Other: after a POST, the browser GETs {@code location}. */
    static ConsoleResponse seeOther(String location) {
        return new ConsoleResponse(303, "text/plain; charset=utf-8", "see " + location + "\n", Map.of("Location", location));
    }

    public byte[] bodyBytes() {
        return body.getBytes(StandardCharsets.UTF_8);
    }
}
