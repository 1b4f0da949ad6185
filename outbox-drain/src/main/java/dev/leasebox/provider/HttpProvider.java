package dev.leasebox.provider;


import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * POSTs each envelope's payload to one URL.
 *
 * <p>Every request carries {@code Idempotency-Key} (the entry's key, the same on every emission) and
 * {@code Leasebox-Fence} (the claim token: a receiver that keeps the highest fence per key can refuse
 * a superseded worker), plus {@code Leasebox-Entry-Id}, {@code Leasebox-Type} and the entry's
 * headers as {@code Leasebox-Header-*}. Outcomes: 2xx delivered; 429 or 503 deferred until
 * {@code Retry-After} (seconds or an HTTP date; 30 s when absent); any other 5xx, a timeout or an I/O
 * error retryable; any other status (4xx, 3xx) permanent.
 */
public final class HttpProvider implements OutboxProvider {

    private static final Duration DEFAULT_RETRY_AFTER = Duration.ofSeconds(30);

    private final URI target;
    private final HttpClient client;
    private final Duration requestTimeout;
    private final Clock clock;

    public HttpProvider(URI target, Duration requestTimeout, Clock clock) {
        this.target = validate(target);
        this.requestTimeout = Objects.requireNonNull(requestTimeout, "requestTimeout");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.client = HttpClient.newBuilder().connectTimeout(requestTimeout)
                .followRedirects(HttpClient.Redirect.NEVER).build();
    }

    private static URI validate(URI target) {
        Objects.requireNonNull(target, "target");
        String scheme = target.getScheme();
        if (!"http".equals(scheme) && !"https".equals(scheme) || target.getHost() == null) {
            throw new IllegalArgumentException("http provider: '" + target + "' is not an http:// or https:// URL");
        }
        return target;
    }

    @Override
    public ProviderOutcome emit(Envelope envelope) throws InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(target)
                .timeout(requestTimeout)
                .header("Content-Type", envelope.headers().getOrDefault("content-type", "application/octet-stream"))
                .header("Idempotency-Key", envelope.idempotencyKey())
                .header("Leasebox-Entry-Id", Long.toString(envelope.entryId()))
                .header("Leasebox-Type", envelope.type())
                .POST(HttpRequest.BodyPublishers.ofByteArray(envelope.payload()));
        envelope.fence().ifPresent(fence -> request.header("Leasebox-Fence", Long.toString(fence)));
        for (Map.Entry<String, String> header : envelope.headers().entrySet()) {
            request.header("Leasebox-Header-" + header.getKey(), header.getValue());
        }
        HttpResponse<String> response;
        try {
            response = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            return ProviderOutcome.retryable("POST " + target + " failed: " + e);
        }
        return outcomeOf(response.statusCode(), response.headers().firstValue("Retry-After"), clock.instant());
    }

    /** The outcome of one response status; public for the rules' own tests. */
    static ProviderOutcome outcomeOf(int status, Optional<String> retryAfter, Instant now) {
        if (status >= 200 && status < 300) {
            return ProviderOutcome.delivered("HTTP " + status);
        }
        if (status == 429 || status == 503) {
            return ProviderOutcome.deferredUntil(now.plus(retryAfter(retryAfter, now)), "HTTP " + status);
        }
        if (status >= 500) {
            return ProviderOutcome.retryable("HTTP " + status);
        }
        return ProviderOutcome.permanent("HTTP " + status);
    }

    private static Duration retryAfter(Optional<String> header, Instant now) {
        if (header.isEmpty()) {
            return DEFAULT_RETRY_AFTER;
        }
        String value = header.get().trim();
        try {
            return Duration.ofSeconds(Math.max(0, Long.parseLong(value)));
        } catch (NumberFormatException notSeconds) {
            try {
                Instant at = ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
                return at.isAfter(now) ? Duration.between(now, at) : Duration.ZERO;
            } catch (DateTimeParseException notADate) {
                return DEFAULT_RETRY_AFTER;
            }
        }
    }

    @Override
    public String toString() {
        return "http:" + target;
    }
}
