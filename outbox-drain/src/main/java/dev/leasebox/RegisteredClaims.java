package dev.leasebox;

import dev.leasebox.jdbc.lease.ClaimStyleRegistry;
import dev.leasebox.outbox.ClaimRequest;
import dev.leasebox.outbox.ClaimSelection;
import dev.leasebox.outbox.ForwardingOutboxClaimStore;
import dev.leasebox.outbox.OutboxClaim;
import dev.leasebox.outbox.OutboxClaimStore;

import java.util.List;

/**
 * A worker's claims, started only while its claim-style registration is confirmed live
 * ({@link ClaimStyleRegistry#confirm()}): a worker whose registration lapsed re-registers before its next
 * claim, so it learns of a worker of another style that joined meanwhile before it claims beside it.
 */
final class RegisteredClaims extends ForwardingOutboxClaimStore {

    private final ClaimStyleRegistry registry;

    RegisteredClaims(OutboxClaimStore claims, ClaimStyleRegistry registry) {
        super(claims);
        this.registry = registry;
    }

    @Override
    public List<OutboxClaim> claim(ClaimSelection selection, ClaimRequest request) {
        return registry.confirm() ? super.claim(selection, request) : List.of();
    }
}
