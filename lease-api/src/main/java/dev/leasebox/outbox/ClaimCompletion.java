package dev.leasebox.outbox;

import java.util.Objects;

/** One claim and the completion its holder asks for, for {@link OutboxClaimStore#completeAll}. */
public record ClaimCompletion(OutboxClaim claim, Completion completion) {
    public ClaimCompletion {
        Objects.requireNonNull(claim, "claim");
        Objects.requireNonNull(completion, "completion");
    }
}
