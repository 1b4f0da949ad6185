package dev.leasebox.claim;

import dev.leasebox.claim.leased.LeasedOutboxClaimStore;
import dev.leasebox.outbox.FencedOutboxStore;
import java.util.Locale;

/**
 * How {@link LeasedOutboxClaimStore} turns granted leases into claims.
 *
 * <table>
 *   <caption>Round trips per batch and what each mode guarantees</caption>
 *   <tr><th></th><th>{@link #RECORDED} (default)</th><th>{@link #LEAN}</th></tr>
 *   <tr><td>claim</td><td>candidate read (ids), lease acquisition, claim record: an UPDATE writing
 *       {@code claim_token = fence} where the fence is above {@code fence_high_water} and the row is still
 *       eligible, committed before anything is emitted</td><td>candidate read (ids), lease acquisition,
 *       a read of the granted rows by primary key: rows no longer eligible, or whose high-water mark is
 *       not below the fence, are dropped and their leases released; <b>nothing is written</b></td></tr>
 *   <tr><td>renewal</td><td>leases, then the rows' {@code claim_expires_at}</td><td>leases only</td></tr>
 *   <tr><td>completion</td><td>one UPDATE, written only while the row's {@code claim_token} equals the
 *       holder's fence</td><td>one UPDATE, written only while the holder's fence is strictly above the
 *       row's {@code fence_high_water}; it raises the mark to the fence
 *       ({@link FencedOutboxStore#completeAllFenced})</td></tr>
 *   <tr><td>writes per batch</td><td>2 (claim record, completion)</td><td>1 (completion)</td></tr>
 *   <tr><td>a stale holder (its lease expired, the key was granted again)</td><td>refused from the moment
 *       the newer holder's claim is recorded, before the newer holder emits</td><td>refused only once a
 *       newer holder has <em>completed</em>. Until then its completion is accepted: it did emit, so its
 *       outcome is true; the newer holder's emission is the duplicate, and a terminal outcome of the
 *       stale holder makes the newer holder's completion refused ({@code AlreadyTerminal})</td></tr>
 *   <tr><td>rows in flight</td><td>carry owner, token and expiry: {@code leasebox status} shows them,
 *       candidate reads skip them</td><td>carry nothing: {@code leasebox status} shows no claims, and
 *       candidate reads return them, so the coordinator refuses their keys (batches come back smaller
 *       when many workers share a small candidate window)</td></tr>
 *   <tr><td>duplicate emissions</td><td>only across lease expiry</td><td>only across lease expiry: the
 *       coordinator's lease is the mutual exclusion, and the read after the grant drops a row that the
 *       previous holder completed and released after the candidate read</td></tr>
 *   <tr><td>claim attempts</td><td>{@code claim_attempt_count} counts recorded claims</td><td>it counts
 *       completed claims (an abandoned lean claim leaves no trace on the row)</td></tr>
 * </table>
 *
 * <p>Both modes refuse a fence that is not above the row's high-water mark (a coordinator whose
 * counter went back): they raise the manager's fence floor and retry those keys once.
 *
 * <h2>What lean claims promise, exactly</h2>
 * <ul>
 *   <li>A completion is written only with a fence strictly above every fence that completed the row
 *       before, and only while this worker still holds the claim's lease as far as it knows (a lease it saw
 *       lost, released or granted again writes nothing); a stale holder that has not noticed is refused
 *       once a newer holder has completed, not before.</li>
 *   <li>Until then a stale holder's completion is accepted, whatever it says. That includes a stale
 *       {@code DEAD_LETTERED} (or {@code FAILED}) that lands while a newer holder's delivery succeeds: the
 *       row ends dead-lettered although it was delivered, and the newer holder is told
 *       {@code AlreadyTerminal}. Recorded claims refuse the stale holder from the moment the newer claim
 *       is recorded.</li>
 *   <li>The coordinator's lease is the only mutual exclusion while a row is in flight. If the coordinator
 *       loses its data (Redis restarted without persistence or failed over to a replica that had not
 *       received the grants, a ZooKeeper ensemble rebuilt, a Hazelcast CP group reset), every row in
 *       flight can be granted to another worker at once and emitted twice <em>concurrently</em>, with no
 *       lease having expired. Recorded claims refuse the second claim by the row's high-water mark and so
 *       duplicate only across expiry.</li>
 *   <li>Lean workers exclude only each other, and only on the same coordinator and namespace: a table's
 *       lean workers cannot share it with recorded workers or with lean workers of another coordinator,
 *       namespace or granularity. The JDBC worker refuses to start beside them
 *       ({@code dev.leasebox.jdbc.lease.ClaimStyleRegistry}), and a lean completion never clears another
 *       holder's unexpired recorded claim.</li>
 * </ul>
 * Every duplicate carries the same idempotency key; providers that honour it collapse them.
 *
 * <h2>With partition leases</h2>
 * The same two modes apply to the rows of a worker's slots ({@code PartitionedOutboxClaimStore}):
 * recorded claims write owner, expiry and token on a batch's rows in one statement before anything is
 * emitted; lean claims (the default for partition leases) write nothing before the emission, the slot
 * lease being the claim, and complete with one statement that checks the slot's recorded grant and the
 * row's high-water mark. A stale holder's lean completion is refused once a newer grant of the slot is
 * registered, which the newer holder does before it reads a row. A row is never emitted under a grant
 * whose fence is below the row's high-water mark.
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
