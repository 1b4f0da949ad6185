package dev.leasebox.jdbc;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * A test oracle: the slot function of partition leases, in Java, the same value the V3 migration's generated
 * {@code lease_slot} column computes in the database. The slot of an entry is the first 32 bits of
 * {@code md5(partition key)} (of {@code md5(decimal id)} when the entry has no partition key), read
 * as an unsigned big-endian number, modulo the slot count. All entries of one partition key share a
 * slot, whatever the slot count; the database computes it at insert, so writers in any language agree.
 */
final class LeaseSlots {

    private LeaseSlots() {
    }

    /** The slot of an entry with {@code partitionKey} (may be null) and {@code id}, among {@code slotCount}. */
    static int slotOf(String partitionKey, long id, int slotCount) {
        if (slotCount < 1) {
            throw new IllegalArgumentException("slotCount must be positive, was " + slotCount);
        }
        String key = partitionKey != null ? partitionKey : Long.toString(id);
        byte[] digest = md5(key.getBytes(StandardCharsets.UTF_8));
        long first32 = ((digest[0] & 0xFFL) << 24) | ((digest[1] & 0xFFL) << 16) | ((digest[2] & 0xFFL) << 8) | (digest[3] & 0xFFL);
        return (int) (first32 % slotCount);
    }

    private static byte[] md5(byte[] bytes) {
        try {
            return MessageDigest.getInstance("MD5").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no MD5, which every Java platform must provide", e);
        }
    }
}
