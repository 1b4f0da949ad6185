package dev.leasebox.kafka;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Where a {@code kafka:BOOTSTRAP/TOPIC} provider sends: the bootstrap servers ({@code host:port}, several
 * separated by commas) and the topic, parsed from text with errors that name the expected form.
 *
 * @param bootstrapServers {@code host:port[,host:port…]}, as the client's {@code bootstrap.servers}
 * @param topic            the topic every entry is sent to
 */
public record KafkaTarget(String bootstrapServers, String topic) {

    /** The form of a target, for help texts and errors. */
    public static final String FORMAT = "BOOTSTRAP/TOPIC";
    private static final String EXAMPLE = "kafka:127.0.0.1:9092/orders";

    public KafkaTarget {
        Objects.requireNonNull(bootstrapServers, "bootstrapServers");
        Objects.requireNonNull(topic, "topic");
    }

    /** Parses {@code host:port[,host:port…]/topic}; fails with one line naming the expected form. */
    public static KafkaTarget parse(String target) {
        Objects.requireNonNull(target, "target");
        String text = target.trim();
        int slash = text.lastIndexOf('/');
        if (slash <= 0 || slash == text.length() - 1) {
            throw bad(target, slash == 0 ? "names no bootstrap server" : "names no topic");
        }
        String topic = text.substring(slash + 1);
        if (!topic.matches("[A-Za-z0-9._-]{1,249}") || topic.equals(".") || topic.equals("..")) {
            throw bad(target, "topic '" + printable(topic) + "' is not a legal Kafka topic name (letters, digits, '.', '_', '-')");
        }
        List<String> servers = new ArrayList<>();
        for (String server : text.substring(0, slash).split(",")) {
            servers.add(hostAndPort(target, server.trim()));
        }
        return new KafkaTarget(String.join(",", servers), topic);
    }

    private static String hostAndPort(String target, String server) {
        int colon = server.lastIndexOf(':');
        if (colon <= 0 || colon == server.length() - 1) {
            throw bad(target, "bootstrap server '" + printable(server) + "' is not HOST:PORT");
        }
        String port = server.substring(colon + 1);
        int number;
        try {
            number = Integer.parseInt(port);
        } catch (NumberFormatException e) {
            number = -1;
        }
        if (number < 1 || number > 65535) {
            throw bad(target, "bootstrap server '" + printable(server) + "' has no valid port");
        }
        return server;
    }

    private static IllegalArgumentException bad(String target, String why) {
        return new IllegalArgumentException("kafka provider target '" + printable(target) + "' " + why + ": use kafka:" + FORMAT
                + ", e.g. " + EXAMPLE);
    }

    /** The text with control characters shown as '?', so that an error stays on one line. */
    private static String printable(String text) {
        return text.replaceAll("\\p{Cntrl}", "?");
    }

    @Override
    public String toString() {
        return bootstrapServers + "/" + topic;
    }
}
