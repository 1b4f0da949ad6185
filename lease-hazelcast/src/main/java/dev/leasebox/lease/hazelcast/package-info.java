/**
 * Leases on the Hazelcast CP Subsystem's {@link com.hazelcast.cp.lock.FencedLock}:
 * {@link dev.leasebox.lease.hazelcast.HazelcastLeaseManager}, configured by
 * {@link dev.leasebox.lease.hazelcast.HazelcastLeaseConfig}.
 *
 * <h2>Editions and licence</h2>
 * FencedLock needs the CP Subsystem with real Raft: {@code cp-member-count} of 3 or more. Hazelcast
 * community edition has it up to 5.4 (this project builds against 5.4.0); from 5.5 on the CP
 * Subsystem is Enterprise-only and a community member configured with CP members refuses to start.
 * The module uses only the public {@code com.hazelcast.cp} API, so the same jar runs unchanged
 * against Hazelcast Enterprise 5.5+: put the Enterprise jars on the class path in place of
 * {@code com.hazelcast:hazelcast} and supply your licence key in the member configuration
 * ({@code <license-key>} / {@code hazelcast.license-key}); Leasebox ships no licence and never
 * needs one for community 5.3/5.4. A cluster without CP members would run FencedLock in "unsafe
 * mode" (no Raft, fences may repeat): the manager refuses it at start.
 */
package dev.leasebox.lease.hazelcast;
