package dev.leasebox.spring;

import dev.leasebox.console.Console;
import dev.leasebox.console.ConsoleRequest;
import dev.leasebox.console.ConsoleResponse;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** Serves a {@link Console} under the servlet's mapping ({@code leasebox.console.path}, default /leasebox). */
final class ConsoleServlet extends HttpServlet {

    private final transient Console console;

    ConsoleServlet(Console console) {
        this.console = console;
    }

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        ConsoleResponse answer = console.handle(new ConsoleRequest(request.getMethod(),
                request.getContextPath() + request.getServletPath(),
                request.getPathInfo() == null ? "" : request.getPathInfo(),
                ConsoleRequest.parameters(request.getQueryString()), form(request), request.getHeader("Host"),
                Optional.ofNullable(request.getHeader("Origin")), Optional.ofNullable(request.getHeader("Referer"))));
        response.setStatus(answer.status());
        response.setContentType(answer.contentType());
        answer.headers().forEach(response::setHeader);
        byte[] body = answer.bodyBytes();
        response.setContentLength(body.length);
        if (!request.getMethod().equals("HEAD")) {
            response.getOutputStream().write(body);
        }
    }

    /** The POSTed form's fields; the container has parsed the url-encoded body already. */
    private static Map<String, String> form(HttpServletRequest request) {
        Map<String, String> form = new LinkedHashMap<>();
        if (request.getMethod().equals("POST")) {
            request.getParameterMap().forEach((name, values) -> {
                if (values.length > 0) {
                    form.put(name, values[0]);
                }
            });
        }
        return form;
    }
}
