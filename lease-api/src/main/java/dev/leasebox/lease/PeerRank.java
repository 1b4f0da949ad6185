package dev.leasebox.lease;

/**
 * Where one lease manager stands among the managers currently live in its namespace, as its
 * coordinator's membership shows them: {@code rank} in {@code 0..peers-1}, every live manager holding
 * a different rank when their views agree.
 *
 * <p>A hint for spreading work, never a basis for safety: views lag joins, departures and deaths by
 * the coordinator's membership delay, and two managers may briefly hold the same rank. Callers use it
 * to prefer different keys (fewer refused grants), and stay correct whatever it says, since every
 * key is still granted by the coordinator.
 *
 * @param rank  this manager's position in the sorted list of live members, from 0
 * @param peers the number of live members, this one included; at least 1
 */
public record PeerRank(int rank, int peers) {

    public PeerRank {
        if (peers < 1) {
            throw new IllegalArgumentException("peers must be at least 1, was " + peers);
        }
        if (rank < 0 || rank >= peers) {
            throw new IllegalArgumentException("rank must be in 0.." + (peers - 1) + ", was " + rank);
        }
    }
}
