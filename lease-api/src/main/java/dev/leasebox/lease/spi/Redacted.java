package dev.leasebox.lease.spi;

import java.util.regex.Pattern;

/** Text that may carry credentials, made fit for a log line or an error message. */
public final class Redacted {

    /** {@code scheme://user:password@} or {@code scheme://token@}: the part before {@code @} after a scheme. */
    private static final Pattern USER_INFO = Pattern.compile("([A-Za-z][A-Za-z0-9+.-]*://)([^/@\\s]*?)(?::[^/@\\s]*)?@");

    private Redacted() {
    }

    /**
     * {@code text} with the credentials of every URI in it replaced: {@code redis://app:secret@host:6379}
     * becomes {@code redis://app:***@host:6379}, {@code rediss://token@host} becomes {@code rediss://***@host}.
     */
    public static String credentials(String text) {
        if (text == null) {
            return null;
        }
        return USER_INFO.matcher(text).replaceAll(m -> {
            boolean hadPassword = m.group().indexOf(':', m.group(1).length()) >= 0;
            String user = hadPassword ? m.group(2) + ":***" : "***";
            return java.util.regex.Matcher.quoteReplacement(m.group(1) + user + "@");
        });
    }

    /**
     * {@code uri}, one URI rather than free text, with the credentials of its user info replaced as by
     * {@link #credentials(String)}, whatever they hold: the user info is all of the authority before its last
     * {@code @}, so a password with a space or an {@code @} in it (a URI that does not parse) is hidden too.
     * Text without {@code ://} is returned as it is.
     */
    public static String uriCredentials(String uri) {
        int start = uri == null ? -1 : uri.indexOf("://");
        if (start < 0) {
            return uri;
        }
        start += 3;
        int end = start;
        while (end < uri.length() && "/?#".indexOf(uri.charAt(end)) < 0) {
            end++;
        }
        int at = uri.lastIndexOf('@', end - 1);
        if (at < start) {
            return uri;
        }
        int colon = uri.indexOf(':', start);
        String user = colon >= 0 && colon < at ? uri.substring(start, colon) + ":***" : "***";
        return uri.substring(0, start) + user + uri.substring(at);
    }
}
