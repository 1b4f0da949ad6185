package dev.leasebox.jdbc.store;

import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The candidate ids this store's candidate reads offered whose rows still carried a lapsed claim (an
 * expired claim that was never completed), until a claim record says what became of them: the leased claim
 * path's way of telling a takeover (decision 0040) without a read or a column more. The candidate read has
 * the flag already ({@code select_eligible_ids.sql}'s {@code lapsed}, which {@link CandidateSample} prefers);
 * a grant recorded on such a row took it over.
 *
 * <p>What it can get wrong, both rare and neither touching a claim: a row whose lapsed claim its holder
 * completed in the moment between the candidate read and the record, in a way that left the row eligible
 * (a release, a retry due at once), counts as taken over; and a row that another worker took over, finished
 * and left eligible again in that moment counts twice, once by each. Ids offered but granted to another
 * worker stay until {@link #MAX_REMEMBERED} have gathered, and are then forgotten all at once.
 */
final class LapsedCandidates {

    /** Past this many remembered ids (orphans granted to others) the memory starts again. */
    static final int MAX_REMEMBERED = 4 * ClaimCandidates.MAX_CANDIDATE_WINDOW;

    private final Set<Long> lapsed = ConcurrentHashMap.newKeySet();

    /** A candidate read offered {@code ids}, whose rows carried a lapsed claim. */
    void offered(Collection<Long> ids) {
        if (ids.isEmpty()) {
            return;
        }
        if (lapsed.size() > MAX_REMEMBERED) {
            lapsed.clear();
        }
        lapsed.addAll(ids);
    }

    /** Claims were recorded on {@code ids}: those the candidate read found lapsed, now resolved. */
    Set<Long> takenOver(Collection<Long> ids) {
        Set<Long> taken = new HashSet<>();
        for (Long id : ids) {
            if (lapsed.remove(id)) {
                taken.add(id);
            }
        }
        return taken;
    }

    /** Grants on {@code ids} were refused for good (the row is gone or no longer eligible): forget them. */
    void forget(Collection<Long> ids) {
        lapsed.removeAll(ids);
    }
}
