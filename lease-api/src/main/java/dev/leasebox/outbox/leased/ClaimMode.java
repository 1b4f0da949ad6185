package dev.leasebox.outbox.leased;

import java.util.Locale;

/**
 * How {@link LeasedOutboxClaimStore} turns granted leases into claims.
 *
 * <table>
 *   <caption>Round trips per batch and what each mode guarantees</caption>
 *   <tr><th></th><th>{@link #RECORDED} (default)</th><th>{@link #LEAN}</th></tr>
 *   <tr><td>claim</td><td>candidate read, lease acquisition, claim record (an UPDATE writing
 *       {@code claim_token = fence} where the fence is above {@code fence_high_water} and the row is
 *       still eligible)</td><td>candidate read, lease acquisition; nothing is written</td></tr>
 *   <tr><td>completion</td><td>one UPDATE, written only while the row's {@code claim_token} equals the
 *       holder's fence</td><td>one UPDATE, written only while the holder's fence is strictly above the
 *       row's {@code fence_high_water}; it raises the mark to the fence
 *       ({@link FencedOutboxStore#completeAllFenced})</td></tr>
 *   <tr><td>a stale holder (lease expired, key re-granted)</td><td>refused from the moment the newer
 *       holder's claim is recorded, i.e. before the newer holder emits</td><td>refused only once a newer
 *       holder has <em>completed</em>; until then its completion is accepted (it did emit), and the
 *       newer holder's completion is then refused if that outcome was terminal</td></tr>
 *   <tr><td>rows in flight</td><td>carry owner, token and expiry: {@code leasebox status} shows them,
 *       candidate reads skip them</td><td>carry nothing: {@code leasebox status} shows no claims,
 *       candidate reads return them and the coordinator refuses their keys</td></tr>
 *   <tr><td>duplicate emissions</td><td>only across lease expiry (the claim record re-checks the row
 *       after the grant)</td><td>across lease expiry, and when a candidate read that still saw the row
 *       eligible is followed by a grant after the previous holder completed <em>and released</em>:
 *       use {@link ReleaseAfterCompletion#NON_TERMINAL} to keep that second case to lease expiry</td></tr>
 * </table>
 *
 * <p>Both modes refuse a fence that is not above the row's high-water mark (a coordinator whose
 * counter went back): {@code LEAN} compares it with the mark of the candidate read before emitting,
 * raises the manager's fence floor and retries those keys once, as {@code RECORDED} does.
 */
public enum ClaimMode {
    /** A claim record is written before anything is emitted; completions are checked against it. */
    RECORDED,
    /** No claim record; the fence check moves into the completion. See the class comment for the difference. */
    LEAN;

    /** {@code recorded} or {@code lean}, any case; anything else fails with a message naming both. */
    public static ClaimMode parse(String text) {
        try {
            return valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new IllegalArgumentException("Invalid claim mode '" + text + "': choose recorded or lean");
        }
    }
}
