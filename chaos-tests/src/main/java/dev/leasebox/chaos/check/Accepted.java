package dev.leasebox.chaos.check;

import dev.leasebox.chaos.history.HistoryEvent;

/** A completion the store accepted, with when it was sent (its invocation) on the common clock. */
record Accepted(HistoryEvent done, long sentAt) {
}
