package dev.leasebox.lease.hazelcast;

import java.util.Optional;

/** The drain's row keys ({@code row-<id>}), spelled out for the tests of the row lock slots. */
final class RowKeys {

    private RowKeys() {
    }

    static String leaseKey(long id) {
        return "row-" + id;
    }

    static Optional<Long> entryIdOf(String key) {
        return key.startsWith("row-") ? Optional.of(Long.parseLong(key.substring(4))) : Optional.empty();
    }
}
