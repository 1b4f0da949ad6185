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
}
