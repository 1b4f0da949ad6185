package dev.leasebox.drain;

import dev.leasebox.claim.leased.LeasedOutboxClaimStore;
import dev.leasebox.lease.inmemory.InMemoryLeaseManager;
import dev.leasebox.outbox.OutboxClaimStore;
import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.outbox.OutboxStore;
import dev.leasebox.outbox.inmemory.InMemoryOutboxStore;
import dev.leasebox.provider.OutboxProvider;
import dev.leasebox.testkit.MutableClock;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * One outbox shared by every worker of a test, as rows in one database and leases in one
 * coordinator: an {@link InMemoryOutboxStore} and an {@link InMemoryLeaseManager} on one
 * {@link MutableClock}. Each simulated worker gets its own {@link LeasedOutboxClaimStore}, as a
 * separate process would. Closes every drain it built.
 */
final class DrainFixture implements AutoCloseable {

    static final Duration LEASE = Duration.ofSeconds(30);

    final MutableClock clock = MutableClock.startingAt2026();
    final InMemoryOutboxStore outbox = new InMemoryOutboxStore(clock);
    final InMemoryLeaseManager leases = new InMemoryLeaseManager(clock);
    private final List<OutboxDrain> drains = new ArrayList<>();

    /** A worker's own claim store over the shared outbox and coordinator. */
    LeasedOutboxClaimStore newClaimStore() {
        return LeasedOutboxClaimStore.open(outbox, leases, clock);
    }

    List<OutboxEntry> enqueue(int count) {
        List<OutboxEntry> entries = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            entries.add(outbox.enqueue(OutboxMessage.of("order.placed", ("order-" + i).getBytes(StandardCharsets.UTF_8))
                    .withPartitionKey("customer-" + (i % 7))
                    .withHeader("source", "test")));
        }
        return entries;
    }

    OutboxEntry row(long id) {
        return outbox.find(id).orElseThrow();
    }

    /** Options a test starts from: a readable owner, the 30 s lease, renewal too slow to fire by itself. */
    static DrainOptions.Builder options(String owner) {
        return DrainOptions.builder().owner(owner).batchSize(10).leaseDuration(LEASE)
                .renewalInterval(Duration.ofSeconds(10)).shutdownTimeout(Duration.ofSeconds(30));
    }

    /** A drain builder on this fixture's clock with a seeded jitter source. */
    OutboxDrain.Builder drainOn(OutboxClaimStore store, OutboxProvider provider, DrainOptions options) {
        return OutboxDrain.builder().store(store).provider(provider).options(options).clock(clock)
                .backoffRandom(new Random(42));
    }

    OutboxDrain register(OutboxDrain drain) {
        drains.add(drain);
        return drain;
    }

    /** A claim-path drain with its own claim store. */
    OutboxDrain drain(String owner, OutboxProvider provider) {
        return register(drainOn(newClaimStore(), provider, options(owner).build()).build());
    }

    @Override
    public void close() {
        drains.forEach(OutboxDrain::close);
        leases.close();
    }
}
