package dev.leasebox.console;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One HTTP request as the console sees it, whatever server received it.
 *
 * @param method  GET, POST, ...
 * @param base    where the console is mounted, without a trailing slash: "" at the root, "/leasebox" in an application
 * @param path    the rest of the path: "", "/", "/live", "/redrive", ...
 * @param query   the query string's parameters (first value of each)
 * @param form    the url-encoded form body's parameters (first value of each); empty for GET
 * @param host    the Host header (host[:port]), for the same-origin check of a POST
 * @param origin  the Origin header, if sent
 * @param referer the Referer header, if sent
 */
public record ConsoleRequest(String method, String base, String path, Map<String, String> query, Map<String, String> form,
                             String host, Optional<String> origin, Optional<String> referer) {

    public ConsoleRequest {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(base, "base");
        Objects.requireNonNull(path, "path");
        query = Map.copyOf(query);
        form = Map.copyOf(form);
        host = host == null ? "" : host;
        Objects.requireNonNull(origin, "origin");
        Objects.requireNonNull(referer, "referer");
    }

    /** The parameters of a url-encoded query string or form body; the first value of each name wins. */
    public static Map<String, String> parameters(String encoded) {
        Map<String, String> parameters = new LinkedHashMap<>();
        if (encoded == null || encoded.isEmpty()) {
            return parameters;
        }
        for (String pair : encoded.split("&")) {
            int eq = pair.indexOf('=');
            String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            parameters.putIfAbsent(name, value);
        }
        return parameters;
    }
}
