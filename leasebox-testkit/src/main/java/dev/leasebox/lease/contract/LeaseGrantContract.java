package dev.leasebox.lease.contract;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseManager;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The granting half of the lease contract: exclusion, fences, batches. Backends extend
 * {@link LeaseManagerContract}, which inherits these tests.
 */
public abstract class LeaseGrantContract extends LeaseContractSupport {

    @Test
    void aKeyHeldByOneManagerIsNotGrantedToAnother() {
        LeaseManager a = manager();
        LeaseManager b = manager();
        String key = key("exclusive");
        Lease held = acquireFree(a, key, owner(), longLeaseTtl());

        assertThat(b.acquire(request(List.of(key), owner(), longLeaseTtl()))).isEmpty();
        assertThat(a.renew(List.of(held))).as("the first holder still holds it").hasSize(1);
    }

    @Test
    void aManagerReacquiringAKeyItHoldsIsNotGranted() {
        LeaseManager a = manager();
        String owner = owner();
        String key = key("held-twice");
        Lease held = acquireFree(a, key, owner, longLeaseTtl());

        assertThat(a.acquire(request(List.of(key), owner, longLeaseTtl()))).isEmpty();
        assertThat(a.renew(List.of(held))).as("the original grant is untouched").hasSize(1)
                .allSatisfy(l -> assertThat(l.sameGrant(held)).isTrue());
    }

    @Test
    void aGrantCarriesTheRequestedKeyOwnerTtlAndAConservativeDeadline() {
        LeaseManager a = manager();
        String owner = owner();
        String key = key("fields");
        Lease lease = acquireFree(a, key, owner, longLeaseTtl());

        assertThat(lease.key()).isEqualTo(key);
        assertThat(lease.owner()).isEqualTo(owner);
        assertThat(lease.fence()).isPositive();
        assertThat(lease.ttl()).isEqualTo(longLeaseTtl());
        assertThat(lease.localDeadline()).isAfter(lease.grantedAt())
                .isBeforeOrEqualTo(lease.grantedAt().plus(longLeaseTtl()));
    }

    @Test
    void fencesStrictlyGrowAcrossExpiryAndRegrant() {
        LeaseManager a = manager();
        LeaseManager b = manager();
        String key = key("fence-expiry");
        Lease first = acquireFree(a, key, owner(), leaseTtl());

        Lease second = regrantAfterExpiry(key, b, owner(), leaseTtl());

        assertThat(second.fence()).isGreaterThan(first.fence());
        Lease third = regrantAfterExpiry(key, a, owner(), leaseTtl());
        assertThat(third.fence()).isGreaterThan(second.fence());
    }

    @Test
    void fencesStrictlyGrowAcrossReleaseAndRegrant() {
        LeaseManager a = manager();
        LeaseManager b = manager();
        String key = key("fence-release");
        long lastFence = 0;
        for (int round = 0; round < 3; round++) {
            LeaseManager holder = round % 2 == 0 ? a : b;
            Lease lease = acquireFree(holder, key, owner(), longLeaseTtl());
            assertThat(lease.fence()).as("fence of grant %d", round).isGreaterThan(lastFence);
            lastFence = lease.fence();
            assertThat(holder.release(List.of(lease))).hasSize(1);
        }
    }

    @Test
    void aBatchGrantsOnlyTheFreeKeysInOneCall() {
        LeaseManager a = manager();
        LeaseManager b = manager();
        List<String> keys = keys("partial", 4);
        acquireFree(a, keys.get(0), owner(), longLeaseTtl());
        acquireFree(a, keys.get(2), owner(), longLeaseTtl());

        String owner = owner();
        List<Lease> granted = b.acquire(request(keys, owner, longLeaseTtl()));

        assertThat(granted).extracting(Lease::key).containsExactlyInAnyOrder(keys.get(1), keys.get(3));
        assertThat(granted).extracting(Lease::owner).containsOnly(owner);
    }

    @Test
    void emptyRequestsGrantRenewAndReleaseNothing() {
        LeaseManager a = manager();
        assertThat(a.acquire(request(List.of(), owner(), longLeaseTtl()))).isEmpty();
        assertThat(a.renew(List.of())).isEmpty();
        assertThat(a.release(List.of())).isEmpty();
    }

    @Test
    void aReleasedKeyIsImmediatelyGrantableToAnotherManager() {
        LeaseManager a = manager();
        LeaseManager b = manager();
        String key = key("released");
        Lease first = acquireFree(a, key, owner(), longLeaseTtl());

        assertThat(a.release(List.of(first))).hasSize(1).allSatisfy(l -> assertThat(l.sameGrant(first)).isTrue());
        Lease second = acquireFree(b, key, owner(), longLeaseTtl());

        assertThat(second.fence()).isGreaterThan(first.fence());
    }

    @Test
    void aBatchOfAHundredKeysIsGrantedAndReleasedInOneCallEach() {
        LeaseManager a = manager();
        LeaseManager b = manager();
        List<String> keys = keys("hundred", 100);

        List<Lease> granted = a.acquire(request(keys, owner(), longLeaseTtl()));

        assertThat(granted).extracting(Lease::key).containsExactlyInAnyOrderElementsOf(keys);
        Set<Long> fences = new HashSet<>();
        granted.forEach(l -> fences.add(l.fence()));
        assertThat(fences).as("distinct fences").hasSize(100);
        assertThat(b.acquire(request(keys, owner(), longLeaseTtl()))).as("all held").isEmpty();
        assertThat(a.release(granted)).hasSize(100);
        assertThat(b.acquire(request(keys, owner(), longLeaseTtl()))).as("all free again").hasSize(100);
    }

    @Test
    void duplicateKeysInOneRequestAreGrantedOnce() {
        LeaseManager a = manager();
        String key = key("duplicate");
        List<Lease> granted = a.acquire(request(List.of(key, key), owner(), longLeaseTtl()));
        assertThat(granted).extracting(Lease::key).containsExactly(key);
    }

    @Test
    void aLimitedRequestGrantsItsLimitWhenEnoughKeysAreFreeAndLeavesTheRestFree() {
        LeaseManager a = manager();
        LeaseManager b = manager();
        List<String> keys = keys("limited", 10);

        List<Lease> granted = a.acquire(request(keys, owner(), longLeaseTtl()).limitedTo(4));

        assertThat(granted).hasSize(4).extracting(Lease::key).doesNotHaveDuplicates().isSubsetOf(keys);
        List<String> rest = keys.stream().filter(k -> granted.stream().noneMatch(l -> l.key().equals(k))).toList();
        assertThat(b.acquire(request(keys, owner(), longLeaseTtl()))).as("the keys not granted are free")
                .extracting(Lease::key).containsExactlyInAnyOrderElementsOf(rest);
    }

    @Test
    void aLimitedRequestSkipsHeldKeysAndFillsItsLimitFromTheOthers() {
        LeaseManager a = manager();
        LeaseManager b = manager();
        List<String> keys = keys("fill", 12);
        List<Lease> held = b.acquire(request(keys.subList(0, 5), owner(), longLeaseTtl()));
        assertThat(held).hasSize(5);

        List<Lease> granted = a.acquire(request(keys, owner(), longLeaseTtl()).limitedTo(6));

        assertThat(granted).as("6 of the 7 free keys").hasSize(6).extracting(Lease::key)
                .doesNotHaveDuplicates().isSubsetOf(keys.subList(5, 12));
        assertThat(b.renew(held)).as("the other holder's leases are untouched").hasSize(5);
    }

    @Test
    void aLimitedRequestOfAHundredFromTwoHundredKeysIsOneCall() {
        LeaseManager a = manager();
        LeaseManager b = manager();
        List<String> keys = keys("overask", 200);
        List<Lease> first = a.acquire(request(keys, owner(), longLeaseTtl()).limitedTo(100));
        List<Lease> second = b.acquire(request(keys, owner(), longLeaseTtl()).limitedTo(100));

        assertThat(first).hasSize(100);
        assertThat(second).as("the hundred keys the first left").hasSize(100);
        Set<String> all = new HashSet<>();
        first.forEach(l -> all.add(l.key()));
        second.forEach(l -> all.add(l.key()));
        assertThat(all).containsExactlyInAnyOrderElementsOf(keys);
    }
}
