package dev.leasebox.lease;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The lease value types refuse what cannot be a lease, and compute deadlines conservatively. */
class LeaseValuesTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final Duration TTL = Duration.ofSeconds(10);

    @Test
    void aLeaseRequestRefusesABlankOwnerANonPositiveTtlAndAMarginOutsideZeroToTtl() {
        assertThatThrownBy(() -> new LeaseRequest(List.of("k"), " ", TTL)).hasMessageContaining("owner");
        assertThatThrownBy(() -> new LeaseRequest(List.of("k"), "w", Duration.ZERO)).hasMessageContaining("ttl");
        assertThatThrownBy(() -> new LeaseRequest(List.of("k"), "w", Duration.ofSeconds(-1))).hasMessageContaining("ttl");
        assertThatThrownBy(() -> new LeaseRequest(List.of("k"), "w", TTL, TTL)).hasMessageContaining("safetyMargin");
        assertThatThrownBy(() -> new LeaseRequest(List.of("k"), "w", TTL, Duration.ofMillis(-1)))
                .hasMessageContaining("safetyMargin");
    }

    @Test
    void aLeaseRequestRefusesBlankAndNullKeysAndDropsDuplicatesKeepingOrder() {
        assertThatThrownBy(() -> new LeaseRequest(List.of("a", ""), "w", TTL)).hasMessageContaining("blank");
        List<String> withNull = new ArrayList<>(Arrays.asList("a", null));
        assertThatThrownBy(() -> new LeaseRequest(withNull, "w", TTL)).isInstanceOf(NullPointerException.class);

        LeaseRequest request = new LeaseRequest(List.of("b", "a", "b", "c", "a"), "w", TTL);

        assertThat(request.keys()).containsExactly("b", "a", "c");
    }

    @Test
    void aLeaseRequestsGrantLimitIsAtMostItsDistinctKeysAndAtLeastOne() {
        LeaseRequest all = new LeaseRequest(List.of("a", "b", "a", "c"), "w", TTL);
        assertThat(all.maxGrants()).isEqualTo(3);
        assertThat(all.limited()).isFalse();
        assertThat(all.limitedTo(2).maxGrants()).isEqualTo(2);
        assertThat(all.limitedTo(2).limited()).isTrue();
        assertThat(all.limitedTo(2).keys()).containsExactly("a", "b", "c");
        assertThat(all.limitedTo(50).maxGrants()).isEqualTo(3);
        assertThatThrownBy(() -> all.limitedTo(0)).hasMessageContaining("at least 1, was 0");
        assertThat(new LeaseRequest(List.of(), "w", TTL).maxGrants()).isZero();
    }

    @Test
    void theDefaultSafetyMarginIsATenthOfTheTtlCappedAtTwoSeconds() {
        assertThat(LeaseRequest.defaultSafetyMargin(Duration.ofSeconds(10))).isEqualTo(Duration.ofSeconds(1));
        assertThat(LeaseRequest.defaultSafetyMargin(Duration.ofMinutes(5))).isEqualTo(Duration.ofSeconds(2));
        assertThat(new LeaseRequest(List.of("k"), "w", Duration.ofMillis(500)).safetyMargin()).isEqualTo(Duration.ofMillis(50));
    }

    @Test
    void aGrantedLeaseEndsLocallyOneMarginBeforeTheCoordinatorsExpiry() {
        LeaseRequest request = new LeaseRequest(List.of("k"), "w", TTL);

        Lease lease = request.grant("k", 7, T0);

        assertThat(lease.localDeadline()).isEqualTo(T0.plusSeconds(9));
        assertThat(lease.safetyMargin()).isEqualTo(Duration.ofSeconds(1));
        assertThat(lease.isLocallyValid(T0.plusMillis(8_999))).isTrue();
        assertThat(lease.isLocallyValid(T0.plusSeconds(9))).isFalse();
    }

    @Test
    void aRenewedLeaseKeepsItsGrantAndMarginAndMovesItsDeadline() {
        Lease lease = new LeaseRequest(List.of("k"), "w", TTL).grant("k", 7, T0);

        Lease renewed = lease.renewed(T0.plusSeconds(5));

        assertThat(renewed.localDeadline()).isEqualTo(T0.plusSeconds(14));
        assertThat(renewed.safetyMargin()).isEqualTo(lease.safetyMargin());
        assertThat(renewed.sameGrant(lease)).isTrue();
        assertThat(renewed).isNotEqualTo(lease);
    }

    @Test
    void aLeaseRenewedManyTimesNeverOutlivesTheCoordinatorsExpiry() {
        Lease lease = new LeaseRequest(List.of("k"), "w", TTL).grant("k", 7, T0);
        for (int i = 1; i <= 5; i++) {
            Instant sentAt = T0.plusSeconds(5L * i);
            lease = lease.renewed(sentAt);
            assertThat(lease.localDeadline()).as("deadline after renewal %d", i).isEqualTo(sentAt.plus(TTL).minusSeconds(1));
        }
    }

    @Test
    void sameGrantTellsGrantsApartByKeyOwnerAndFence() {
        Lease lease = new Lease("k", "w", 7, T0, TTL, T0.plusSeconds(9));

        assertThat(lease.sameGrant(new Lease("k", "w", 8, T0, TTL, T0.plusSeconds(9)))).isFalse();
        assertThat(lease.sameGrant(new Lease("k", "v", 7, T0, TTL, T0.plusSeconds(9)))).isFalse();
        assertThat(lease.sameGrant(new Lease("j", "w", 7, T0, TTL, T0.plusSeconds(9)))).isFalse();
    }

    @Test
    void aLeaseRefusesANonPositiveFenceNamingTheKey() {
        assertThatThrownBy(() -> new Lease("k", "w", 0, T0, TTL, T0)).hasMessageContaining("fence").hasMessageContaining("k");
        assertThatThrownBy(() -> new Lease("k", "w", -3, T0, TTL, T0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aLeaseLossNamesAtLeastOneLeaseAndIsImmutable() {
        Lease lease = new Lease("k", "w", 1, T0, TTL, T0);
        List<Lease> leases = new ArrayList<>(List.of(lease));
        LeaseLoss loss = new LeaseLoss(leases, LeaseLoss.Cause.SESSION_EXPIRED, "zk session id 0x1 expired");
        leases.clear();

        assertThat(loss.leases()).containsExactly(lease);
        assertThatThrownBy(() -> new LeaseLoss(List.of(), LeaseLoss.Cause.CONNECTION_LOST, "x"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
