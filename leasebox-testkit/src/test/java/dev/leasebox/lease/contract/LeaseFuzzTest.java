package dev.leasebox.lease.contract;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseLossListener;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.LeaseRequest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/** The fuzz's checker can fail: managers that break exclusion or fencing are caught. */
class LeaseFuzzTest {

    /** Grants every requested key, twice, ignoring holders; fences from {@code fences}. */
    private static final class BrokenManager implements LeaseManager {
        private final LongSupplier fences;
        private final boolean doubleGrant;

        BrokenManager(LongSupplier fences, boolean doubleGrant) {
            this.fences = fences;
            this.doubleGrant = doubleGrant;
        }

        @Override
        public List<Lease> acquire(LeaseRequest request) {
            List<Lease> granted = new ArrayList<>();
            for (String key : request.keys()) {
                granted.add(request.grant(key, fences.getAsLong(), Instant.EPOCH));
                if (doubleGrant) {
                    granted.add(request.grant(key, fences.getAsLong(), Instant.EPOCH));
                }
            }
            return granted;
        }

        @Override
        public List<Lease> renew(Collection<Lease> leases) {
            return List.copyOf(leases);
        }

        @Override
        public List<Lease> release(Collection<Lease> leases) {
            return List.copyOf(leases);
        }

        @Override
        public void addLeaseLossListener(LeaseLossListener listener) {
        }

        @Override
        public String describe() {
            return "broken manager";
        }

        @Override
        public void close() {
        }
    }

    @Test
    void aManagerGrantingAHeldKeyAgainIsReportedAsOverlap() throws Exception {
        LeaseFuzz fuzz = new LeaseFuzz(List.of("k"), Duration.ofSeconds(10));

        LeaseFuzz.Result result = fuzz.run(List.of(new BrokenManager(new AtomicLong()::incrementAndGet, true)), List.of("w"), 3, Duration.ofSeconds(30));

        assertThat(result.violations()).anySatisfy(v -> assertThat(v).startsWith("overlap on k"));
    }

    @Test
    void aManagerWhoseFencesDoNotGrowIsReported() throws Exception {
        LeaseFuzz fuzz = new LeaseFuzz(List.of("k"), Duration.ofSeconds(10));
        LongSupplier stuck = () -> 1;

        LeaseFuzz.Result result = fuzz.run(List.of(new BrokenManager(stuck, false)), List.of("w"), 3, Duration.ofSeconds(30));

        assertThat(result.violations()).anySatisfy(v -> assertThat(v).startsWith("fence did not grow on k"));
        assertThat(result.grants()).isEqualTo(3);
    }
}
