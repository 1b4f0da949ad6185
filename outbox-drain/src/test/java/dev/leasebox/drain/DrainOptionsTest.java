package dev.leasebox.drain;

import dev.leasebox.outbox.OutboxEntry;
import dev.leasebox.outbox.OutboxMessage;
import dev.leasebox.outbox.OutboxStore;
import dev.leasebox.outbox.inmemory.InMemoryOutboxStore;
import dev.leasebox.provider.ProviderOutcome;
import dev.leasebox.testkit.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DrainOptionsTest {

    @Test
    void defaultsAreTheSafeOnes() {
        DrainOptions o = DrainOptions.defaults();

        assertThat(o.useClaimLeases()).isTrue();
        assertThat(o.batchSize()).isEqualTo(100);
        assertThat(o.leaseDuration()).isEqualTo(Duration.ofSeconds(30));
        assertThat(o.renewalInterval()).isEqualTo(Duration.ofSeconds(10));
        assertThat(o.claimSafetyMargin()).isEqualTo(Duration.ofSeconds(2));
        assertThat(o.maxAttempts()).isEqualTo(10);
        assertThat(o.initialBackoff()).isEqualTo(Duration.ofSeconds(1));
        assertThat(o.maxBackoff()).isEqualTo(Duration.ofMinutes(5));
        assertThat(o.backoffMultiplier()).isEqualTo(2.0);
        assertThat(o.backoffJitter()).isEqualTo(1.0);
        assertThat(o.concurrency()).isEqualTo(1);
        assertThat(o.idlePollMin()).isEqualTo(Duration.ofMillis(100));
        assertThat(o.idlePollMax()).isEqualTo(Duration.ofSeconds(5));
        assertThat(o.shutdownTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(o.owner()).matches(".+-" + ProcessHandle.current().pid() + "-[0-9a-f]{6}");
        assertThat(DrainOptions.defaults().owner()).as("each drain gets its own owner").isNotEqualTo(o.owner());
    }

    @Test
    void derivedDefaultsFollowTheLeaseDuration() {
        DrainOptions o = DrainOptions.builder().leaseDuration(Duration.ofSeconds(6)).build();

        assertThat(o.renewalInterval()).isEqualTo(Duration.ofSeconds(2));
        assertThat(o.claimSafetyMargin()).isEqualTo(Duration.ofMillis(600));
        assertThat(o.toBuilder().build()).isEqualTo(o);
        DrainOptions tuned = o.toBuilder().backoff(Duration.ofMillis(200), 3.0, Duration.ofMinutes(1), 0.25).build();
        assertThat(tuned.toBuilder().build()).isEqualTo(tuned);
        assertThat(tuned.backoffMultiplier()).isEqualTo(3.0);
        assertThat(tuned.backoffJitter()).isEqualTo(0.25);
    }

    @Test
    void eachBadOptionFailsAtBuildWithOneLineNamingItAndTheValue() {
        expectFailure(b -> b.batchSize(0), "DrainOptions.batchSize must be in 1..10000, was 0");
        expectFailure(b -> b.batchSize(10_001), "DrainOptions.batchSize must be in 1..10000, was 10001");
        expectFailure(b -> b.leaseDuration(Duration.ZERO), "DrainOptions.leaseDuration must be positive, was PT0S");
        expectFailure(b -> b.leaseDuration(null), "DrainOptions.leaseDuration must be set, was null");
        expectFailure(b -> b.renewalInterval(Duration.ofSeconds(28)),
                "DrainOptions.renewalInterval must be positive and shorter than leaseDuration - claimSafetyMargin (PT28S)"
                        + " so claims are renewed before they count as lost, was PT28S");
        expectFailure(b -> b.claimSafetyMargin(Duration.ofSeconds(30)),
                "DrainOptions.claimSafetyMargin must be in [0, leaseDuration=PT30S), was PT30S");
        expectFailure(b -> b.maxAttempts(0), "DrainOptions.maxAttempts must be at least 1, was 0");
        expectFailure(b -> b.backoffMultiplier(0.9), "DrainOptions.backoffMultiplier must be in 1..100, was 0.9");
        expectFailure(b -> b.backoffJitter(-0.1), "DrainOptions.backoffJitter must be in 0..1, was -0.1");
        expectFailure(b -> b.backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)),
                "DrainOptions.maxBackoff must be at least initialBackoff (PT2S), was PT1S");
        expectFailure(b -> b.backoff(Duration.ZERO, Duration.ofSeconds(1)),
                "DrainOptions.initialBackoff must be at least 1ms, was PT0S");
        expectFailure(b -> b.concurrency(0), "DrainOptions.concurrency must be in 1..256, was 0");
        expectFailure(b -> b.idlePolling(Duration.ofSeconds(1), Duration.ofMillis(10)),
                "DrainOptions.idlePollMax must be at least idlePollMin (PT1S), was PT0.01S");
        expectFailure(b -> b.shutdownTimeout(Duration.ofSeconds(-1)),
                "DrainOptions.shutdownTimeout must not be negative, was PT-1S");
        expectFailure(b -> b.owner(" "), "DrainOptions.owner must not be blank, was ' '");
    }

    private static void expectFailure(UnaryOperator<DrainOptions.Builder> change, String message) {
        assertThatThrownBy(() -> change.apply(DrainOptions.builder()).build())
                .isInstanceOf(DrainConfigurationException.class)
                .hasMessage(message)
                .hasMessageNotContaining("\n");
    }

    @Test
    void claimLeasesOnAStoreThatCannotClaimFailsAtBuildWithOneLineSayingWhatToDo() {
        OutboxStore selectionOnly = new SelectionOnlyStore(new InMemoryOutboxStore(MutableClock.startingAt2026()));

        assertThatThrownBy(() -> OutboxDrain.builder().selectionOnlyStore(selectionOnly)
                .provider(e -> ProviderOutcome.delivered()).build())
                .isInstanceOf(DrainConfigurationException.class)
                .hasMessageNotContaining("\n")
                .hasMessageContaining("useClaimLeases=true but the store " + SelectionOnlyStore.class.getName()
                        + " is not an OutboxClaimStore")
                .hasMessageContaining("use a claim-capable store and apply its claim-column migration")
                .hasMessageContaining("or set useClaimLeases=false and accept duplicate emissions");

        OutboxDrain optedOut = OutboxDrain.builder().selectionOnlyStore(selectionOnly).provider(e -> ProviderOutcome.delivered())
                .options(DrainOptions.builder().useClaimLeases(false).build()).build();
        optedOut.close();
        assertThat(optedOut.state()).isEqualTo(OutboxDrain.State.CLOSED);
    }

    @Test
    void aDrainWithoutStoreOrProviderFailsAtBuild() {
        assertThatThrownBy(() -> OutboxDrain.builder().provider(e -> ProviderOutcome.delivered()).build())
                .isInstanceOf(DrainConfigurationException.class)
                .hasMessage("OutboxDrain needs a store: call builder().store(...)");
        assertThatThrownBy(() -> OutboxDrain.builder().store(new InMemoryOutboxStore(MutableClock.startingAt2026())).build())
                .isInstanceOf(DrainConfigurationException.class)
                .hasMessage("OutboxDrain needs a provider: call builder().provider(...)");
    }

    /** A store without claim columns: only the selection-only operations. */
    static final class SelectionOnlyStore implements OutboxStore {
        private final OutboxStore delegate;

        SelectionOnlyStore(OutboxStore delegate) {
            this.delegate = delegate;
        }

        @Override
        public OutboxEntry enqueue(OutboxMessage message) {
            return delegate.enqueue(message);
        }

        @Override
        public List<OutboxEntry> findPending(int limit) {
            return delegate.findPending(limit);
        }

        @Override
        public List<OutboxEntry> findRetryReady(int limit) {
            return delegate.findRetryReady(limit);
        }

        @Override
        public OutboxEntry save(OutboxEntry entry) {
            return delegate.save(entry);
        }

        @Override
        public Optional<OutboxEntry> find(long id) {
            return delegate.find(id);
        }
    }
}
