package dev.leasebox.chaos.history;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One line of a worker's history: what one worker saw or did, when (on the common clock).
 *
 * <p>{@code t} is wall-clock millis on the run's common clock (the database server's clock at the
 * worker's start plus the worker's monotonic time since), so that histories of workers whose own
 * clock is skewed still order correctly; {@code local} is the worker's own wall clock, as its drain
 * sees it. {@code entry} is -1 and {@code fence}, {@code claimedAt}, {@code expiresAt} are 0 where
 * the kind has none. {@code local} is the worker's wall clock (what libfaketime steps), not the monotonic
 * clock its drain takes deadlines from, so that a stepped clock shows in its history.
 *
 * @param t         common-clock millis
 * @param local     the worker's own clock, millis
 * @param owner     the worker (claim owner)
 * @param kind      one of the constants of this class
 * @param entry     the outbox entry id
 * @param fence     the claim token the event happened under
 * @param claimedAt the claim's recorded start (claim events), millis
 * @param expiresAt the claim's recorded or renewed expiry (claim and renew events), millis
 * @param detail    status, reason or error text
 * @param askedAt   claim events: common-clock millis when the claim call that granted it began (before
 *                  any grant could happen), or 0 when not recorded; the checker's real-time lower bound of
 *                  the grant
 * @param leaseSince claim events of workers whose rows share leases (grouped rows): common-clock millis when the
 *                  request that granted or last renewed the shared lease was sent, which can be long before the
 *                  row's claim call; 0 when the row's lease is its own. The checker's lease bound starts there.
 */
public record HistoryEvent(long t, long local, String owner, String kind, long entry, long fence, long claimedAt,
                           long expiresAt, String detail, long askedAt, long leaseSince) {

    /** An event without {@code askedAt} and {@code leaseSince}. */
    public HistoryEvent(long t, long local, String owner, String kind, long entry, long fence, long claimedAt,
                        long expiresAt, String detail) {
        this(t, local, owner, kind, entry, fence, claimedAt, expiresAt, detail, 0, 0);
    }

    /** An event without {@code leaseSince}. */
    public HistoryEvent(long t, long local, String owner, String kind, long entry, long fence, long claimedAt,
                        long expiresAt, String detail, long askedAt) {
        this(t, local, owner, kind, entry, fence, claimedAt, expiresAt, detail, askedAt, 0);
    }

    /** The worker started (entry -1). */
    public static final String START = "start";
    /** A claim was granted and recorded on the row. */
    public static final String CLAIM = "claim";
    /** A renewal kept the claim; {@code expiresAt} is its new expiry. */
    public static final String RENEW = "renew";
    /** A renewal is about to be asked for; {@code expiresAt} is the most it can set. */
    public static final String RENEW_INVOKE = "renew-invoke";
    /** The provider is about to be called. */
    public static final String INVOKE = "invoke";
    /** The provider delivered. */
    public static final String OK = "ok";
    /** The provider failed without delivering. */
    public static final String FAIL = "fail";
    /** Unknown whether the provider delivered (a timeout). */
    public static final String INFO = "info";
    /** A completion write is about to be sent. */
    public static final String COMPLETE_INVOKE = "complete-invoke";
    /** The store accepted a completion; {@code detail} is the completion kind. */
    public static final String COMPLETED = "completed";
    /** The store refused a completion; {@code detail} is the refusal. */
    public static final String REFUSED = "refused";
    /** The drain counted the claim lost. */
    public static final String LOST = "lost";
    /** The drain abandoned the claim (nothing written). */
    public static final String ABANDONED = "abandoned";

    /** A claim event's detail starts with this, then the row's claim attempt count (ordered by the database). */
    public static final String CLAIM_ATTEMPT_PREFIX = "claimAttempt=";

    /** For a claim event: the row's claim attempt count after this claim, or 0 when not recorded. */
    public int claimAttempt() {
        if (!detail.startsWith(CLAIM_ATTEMPT_PREFIX)) {
            return 0;
        }
        try {
            return Integer.parseInt(detail.substring(CLAIM_ATTEMPT_PREFIX.length()).trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    public HistoryEvent {
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(detail, "detail");
    }

    /** An event about an entry under a fence, with no claim times. */
    public static HistoryEvent of(long t, String owner, String kind, long entry, long fence, String detail) {
        return new HistoryEvent(t, t, owner, kind, entry, fence, 0, 0, detail);
    }

    /** The JSON line for this event. */
    public String toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("t", t);
        m.put("local", local);
        m.put("owner", owner);
        m.put("kind", kind);
        if (entry >= 0) {
            m.put("entry", entry);
        }
        if (fence != 0) {
            m.put("fence", fence);
        }
        if (claimedAt != 0) {
            m.put("claimedAt", claimedAt);
        }
        if (expiresAt != 0) {
            m.put("expiresAt", expiresAt);
        }
        if (!detail.isEmpty()) {
            m.put("detail", detail);
        }
        if (askedAt != 0) {
            m.put("askedAt", askedAt);
        }
        if (leaseSince != 0) {
            m.put("leaseSince", leaseSince);
        }
        return Json.object(m);
    }

    /** Parses a line written by {@link #toJson()}. */
    public static HistoryEvent parse(String line) {
        Map<String, Object> m = Json.parseObject(line);
        return new HistoryEvent(num(m, "t", 0), num(m, "local", num(m, "t", 0)), str(m, "owner"), str(m, "kind"),
                num(m, "entry", -1), num(m, "fence", 0), num(m, "claimedAt", 0), num(m, "expiresAt", 0),
                m.get("detail") == null ? "" : m.get("detail").toString(), num(m, "askedAt", 0),
                num(m, "leaseSince", 0));
    }

    static long num(Map<String, Object> m, String key, long absent) {
        Object v = m.get(key);
        return v instanceof Number n ? n.longValue() : absent;
    }

    static String str(Map<String, Object> m, String key) {
        Object v = m.get(key);
        if (v == null) {
            throw new IllegalArgumentException("history line without \"" + key + "\": " + m);
        }
        return v.toString();
    }
}
