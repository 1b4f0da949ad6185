package dev.leasebox;

import dev.leasebox.claim.ClaimMode;
import dev.leasebox.claim.Granularity;
import dev.leasebox.claim.ReleaseAfterCompletion;
import dev.leasebox.claim.grouped.GroupedLeaseManager;
import dev.leasebox.jdbc.lease.ClaimStyleRegistry.ClaimStyle;
import dev.leasebox.lease.LeaseManager;

import java.util.Locale;
import java.util.Optional;

/**
 * The claim path a {@link Leasebox} was built with, as the table's claim-style registry records it and as
 * {@link Leasebox#describe()} says it. {@code leases} null: the database backend.
 */
record ClaimPath(Granularity granularity, ClaimMode mode, LeaseManager leases, String coordinatorName,
                 String coordinatorAddress, String coordinatorNamespace, ReleaseAfterCompletion releaseAfterCompletion,
                 boolean releaseInBackground, boolean ordered) {

    /** What the table's claim-style registry records for this worker. */
    ClaimStyle claimStyle() {
        String granularityName = granularity.name().toLowerCase(Locale.ROOT);
        if (mode == ClaimMode.RECORDED) {
            return ClaimStyle.recorded("recorded " + granularityName + " claims through "
                    + (leases == null ? "the database backend" : backendName()));
        }
        if (leases == null) {
            return ClaimStyle.lean(granularityName, "database", "the table's _leases", "-");
        }
        String rowKeys = granularity == Granularity.PARTITION ? ""
                : leases.as(GroupedLeaseManager.class).map(g -> g.grouping().rowKeys()).orElse("");
        return ClaimStyle.lean(granularityName, rowKeys, backendName(),
                Optional.ofNullable(coordinatorAddress).orElse(leases.describe()),
                Optional.ofNullable(coordinatorNamespace).orElse("-"));
    }

    /** One line: the lease manager, the granularity, the claim mode and the release settings. */
    String describe() {
        String how = granularity == Granularity.PARTITION
                ? "partition leases, " + mode.name().toLowerCase(Locale.ROOT) + " claims" + (ordered ? ", ordered per key" : "")
                : "row leases" + (leases == null ? "" : ", claim mode " + mode.name().toLowerCase(Locale.ROOT)
                + ", release after completion " + releaseAfterCompletion.name().toLowerCase(Locale.ROOT).replace('_', '-')
                + (releaseInBackground ? " in the background" : ""));
        return (leases == null ? "database (FOR UPDATE SKIP LOCKED / optimistic claims)" : leases.describe())
                + " (" + how + ")";
    }

    private String backendName() {
        return coordinatorName != null ? coordinatorName : leases.getClass().getSimpleName();
    }
}
