package dev.leasebox.chaos.evidence;

import dev.leasebox.chaos.check.FinalState;
import dev.leasebox.chaos.history.FaultEvent;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Judges every delivery the downstream received ({@code deliveries.jsonl}) against what the database
 * committed ({@code audit.jsonl}), the harness's fault log and the final rows, without a worker's word.
 * Every time compared is the database's clock ({@code clock_timestamp()} in the audit and delivery
 * triggers) or the harness's (the fault log), both on the machine that judges; never a worker's.
 *
 * <ul>
 *   <li><b>{@value #FENCE_TWO_WORKERS}</b>: one fence of one entry presented downstream by two different
 *       workers (a same-fence re-grant). With lean claims it is excused when a coordinator data loss
 *       ({@code coordinator-data-loss} in the fault log) lies between the two deliveries: the coordinator may
 *       then grant a number again, and the store refuses the equal token's completion.</li>
 *   <li><b>{@value #FENCE_REPEATED}</b>: one entry delivered twice under one fence by one worker: two emissions
 *       under one grant with the same token (a row handed out again by the grant that holds it, or retried under the
 *       fence it already used). A token is emitted at most once: a later emission of the row, even by the same grant
 *       after its earlier emission is over, must carry a higher token. Excused, as above, only for lean claims across a
 *       coordinator data loss.</li>
 *   <li><b>{@value #SUPERSEDED_FENCE}</b>: a delivery received when the row's {@code fence_high_water}, as
 *       committed before it, was above the delivery's fence (recorded claims and lean partition claims: a newer
 *       claim or completion was written first), or at or above it (lean row claims: the mark there moves only
 *       by completions, so an equal mark means the row was already finished under that fence).</li>
 *   <li><b>{@value #EMIT_WITHOUT_CLAIM}</b> (recorded claims): a delivery whose fence was not the row's claim
 *       token when it was received, or whose claim had already expired then by the row's
 *       {@code claim_expires_at} (with the tolerance given: 0 when the database's clock wrote it) — unless a
 *       database fault came between the claim's recording and the receipt (the downstream is the same PostgreSQL,
 *       and the renewal could not reach the row: an emission begun under the live claim lands late) — or whose
 *       row was already DELIVERED or DEAD_LETTERED. Lean claims record nothing on the row before emitting; they are
 *       held to {@value #SUPERSEDED_FENCE} instead.</li>
 *   <li><b>{@value #UNEXPLAINED_DUPLICATE}</b>: each repeat delivery of an entry (after its first) must be
 *       explained by the evidence: an <em>ambiguous provider outcome</em> (a provider-fault window, or a
 *       database fault, in the fault log when the earlier delivery was received: the worker may not have learnt
 *       that it was delivered); with recorded claims, the earlier delivery's claim ending before the repeat
 *       without finishing the row: taken over after its recorded expiry ({@code expiry}: the audit shows the
 *       newer claim replacing it at or after its {@code claim_expires_at}) or released by its holder
 *       ({@code loss}); with lean claims (nothing recorded per claim), a different fence and a fault that can
 *       end a lease (a kill, pause, partition, coordinator or database fault, clock step) injected before the
 *       repeat ({@code fault}), or a higher fence (lean partition claims: from the same grant too, re-reading a row it
 *       gave up) after the earlier sender's own report that it lost or abandoned that claim ({@code loss}, from its
 *       history: the database records no lean claim). Anything else is unexplained; a repeat by the same worker under
 *       the same fence is {@value #FENCE_REPEATED}.</li>
 *   <li><b>{@value #FAILED_BUT_DELIVERED}</b>: a row that ended DEAD_LETTERED or FAILED although the downstream
 *       received it, unless an ambiguous provider outcome (as above) covers one of its deliveries.</li>
 * </ul>
 */
public final class DeliveryChecker {

    /** One fence of one entry presented by two different workers. */
    public static final String FENCE_TWO_WORKERS = "deliveryFenceTwoWorkers";
    /** One fence of one entry delivered twice by one worker: two emissions under one token. */
    public static final String FENCE_REPEATED = "deliveryFenceRepeated";
    /** A delivery whose fence the row's high-water mark had already passed (or reached, lean rows). */
    public static final String SUPERSEDED_FENCE = "deliveryFenceSuperseded";
    /** Recorded claims: a delivery without the row's live claim under its fence when it was received. */
    public static final String EMIT_WITHOUT_CLAIM = "deliveryWithoutLiveClaim";
    /** A repeat delivery the evidence does not explain. */
    public static final String UNEXPLAINED_DUPLICATE = "deliveryDuplicateUnexplained";
    /** A row DEAD_LETTERED or FAILED although delivered, without an ambiguous provider outcome. */
    public static final String FAILED_BUT_DELIVERED = "deliveredButFailed";

    public static final List<String> ALL = List.of(FENCE_TWO_WORKERS, FENCE_REPEATED, SUPERSEDED_FENCE, EMIT_WITHOUT_CLAIM,
            UNEXPLAINED_DUPLICATE, FAILED_BUT_DELIVERED);

    /**
     * Reported, not a violation: a delivery that would be {@value #SUPERSEDED_FENCE} or {@value #EMIT_WITHOUT_CLAIM}
     * but whose sender the harness froze (SIGSTOP) and resumed after the claim was recorded (lean: within
     * {@link #FROZEN_LOOKBACK_MICROS} before the receipt) and before the receipt: an emission handed over before the
     * freeze lands after the lease ended (a zombie's emission). No worker can withdraw it; only a downstream that
     * checks fences could refuse it (the jdbc-inbox provider does not), and the outbox's fence refuses the zombie's
     * completion. Counted so that the report shows how often it happened.
     */
    public static final String FROZEN_SENDER = "zombieDeliveries";

    /** Figures reported beside the violations, never failing a run. */
    public static final Set<String> REPORTED_ONLY = Set.of(FROZEN_SENDER);

    /** Lean claims record nothing per claim: a resume this long before a delivery may have frozen its emission. */
    static final long FROZEN_LOOKBACK_MICROS = 30_000_000;

    /** What each class breaks, for the report's list of broken invariants. */
    public static final Map<String, String> MEANING = Map.of(
            FENCE_TWO_WORKERS, "no fence presented by two workers for one entry, from the deliveries",
            FENCE_REPEATED, "no two emissions of one entry under one fence, from the deliveries",
            SUPERSEDED_FENCE, "no fence at or below the row's high-water mark reaches a delivery, from the audit and the deliveries",
            EMIT_WITHOUT_CLAIM, "claim before emit, by the database's clock, from the audit and the deliveries",
            UNEXPLAINED_DUPLICATE, "repeat deliveries explained by expiry, loss or an ambiguous provider fault, from the deliveries",
            FAILED_BUT_DELIVERED, "no DEAD_LETTERED or FAILED row the downstream received, unless a fault made the outcome ambiguous");

    /** Fault log events after which a provider's outcome may be unknown to the worker that emitted. */
    static final Set<String> AMBIGUOUS_OUTCOME = Set.of(FaultEvent.DB_CONNECTIONS_KILLED, FaultEvent.DB_RESTART);
    /** Fault log events that mark the database unreachable or just back: an emission may stall across them. */
    static final Set<String> DATABASE_OUTAGE = Set.of(FaultEvent.DB_CONNECTIONS_KILLED, FaultEvent.DB_RESTART,
            FaultEvent.DB_START);
    /**
     * Faults that can end a lease before its holder finished. A connection cut is one (a call can wait out the cut and
     * its renewal come after the ttl); a connection blip is not: it is shorter than the lease and the session, and the
     * holder reconnects on its session at once, so a repeat after it is explained only as any other (loss, retry).
     */
    static final Set<String> ENDS_LEASES = Set.of(FaultEvent.KILL, FaultEvent.PAUSE, FaultEvent.PARTITION,
            FaultEvent.CONNECTION_CUT, FaultEvent.COORDINATOR_KILL, FaultEvent.COORDINATOR_DATA_LOSS, FaultEvent.COORDINATOR_FAILOVER,
            FaultEvent.CLOCK_SKEW, FaultEvent.CLOCK_STEP, FaultEvent.DB_CONNECTIONS_KILLED, FaultEvent.DB_RESTART);
    /** How long a provider-fault window may outlast its end in the fault log (the control file is re-read every 100 ms). */
    static final long PROVIDER_WINDOW_SLACK_MICROS = 1_000_000;
    /** How long after a database fault a delivery's outcome may still be unknown to its worker (a pool's reconnect). */
    static final long DATABASE_FAULT_SLACK_MICROS = 10_000_000;

    static final Set<String> TERMINAL = Set.of("DELIVERED", "DEAD_LETTERED");
    private static final int MAX_VIOLATION_LINES = 50;

    private DeliveryChecker() {
    }

    /**
     * How the run claimed rows.
     *
     * @param recordedClaims        claims were written on the rows before emitting (not lean)
     * @param leanRows              lean row claims ({@code --claim-mode lean}); false with lean partition claims
     * @param expiryToleranceMicros how far past a row's {@code claim_expires_at} a delivery is still in time: 0 when
     *                              the database's clock wrote the expiry ({@code database} backend), a little when a
     *                              worker's monotonic clock on this machine did
     * @param receiptResolutionMicros 0 when a delivery's receipt time is as fine as the audit's (the jdbc-inbox
     *                              downstream, stamped by the same database), else the step of the downstream's
     *                              clock: a receipt is then judged at the most favourable instant of that step
     * @param switchedWorkers       a run whose recorded fleet was replaced by these workers with lean partition claims:
     *                              their deliveries are judged as lean partition deliveries, a repeat by how the
     *                              earlier delivery's claim was made; empty when the run kept one claim style
     */
    public record Mode(boolean recordedClaims, boolean leanRows, long expiryToleranceMicros, long receiptResolutionMicros,
                       Set<String> switchedWorkers) {
        public Mode {
            switchedWorkers = Set.copyOf(switchedWorkers);
        }

        public Mode(boolean recordedClaims, boolean leanRows, long expiryToleranceMicros, long receiptResolutionMicros) {
            this(recordedClaims, leanRows, expiryToleranceMicros, receiptResolutionMicros, Set.of());
        }

        public static Mode of(String backend, boolean lean, boolean leanRows) {
            return new Mode(!lean, leanRows, "database".equals(backend) ? 0 : 200_000, 0);
        }

        /** The same, for a downstream whose receipt times count in steps of {@code micros} (Kafka: 1000). */
        public Mode withReceiptResolution(long micros) {
            return new Mode(recordedClaims, leanRows, expiryToleranceMicros, micros, switchedWorkers);
        }

        /** The same, the run's recorded fleet replaced by {@code workers} with lean partition claims. */
        public Mode switchedTo(Set<String> workers) {
            return new Mode(recordedClaims, leanRows, expiryToleranceMicros, receiptResolutionMicros, workers);
        }

        /** How {@code worker}'s deliveries are judged. */
        Mode forWorker(String worker) {
            return switchedWorkers.contains(worker)
                    ? new Mode(false, false, expiryToleranceMicros, receiptResolutionMicros, Set.of()) : this;
        }
    }

    /** A worker's own report that it lost or abandoned its claim on {@code entry} at {@code t} (harness clock, ms). */
    public record ReportedLoss(long entry, String owner, long t) {
    }

    public static AuditChecker.Result check(List<AuditRecord> audit, List<Delivery> deliveries, List<FaultEvent> faults,
                                            FinalState end, Mode mode) {
        return check(audit, deliveries, faults, end, mode, List.of());
    }

    /**
     * @param losses the workers' own reports of claims lost or abandoned (their histories): with lean claims, where
     *               the database records nothing per claim, a repeat under a higher fence after its earlier sender
     *               reported that claim lost is explained as {@code loss} (a worker admitting a loss cannot hide a
     *               premature takeover with it; the history checker judges those by real time)
     */
    public static AuditChecker.Result check(List<AuditRecord> audit, List<Delivery> deliveries, List<FaultEvent> faults,
                                            FinalState end, Mode mode, List<ReportedLoss> losses) {
        Map<Long, List<AuditRecord>> auditByEntry = new HashMap<>();
        audit.stream().sorted(Comparator.comparingLong(AuditRecord::seq))
                .forEach(a -> auditByEntry.computeIfAbsent(a.entryId(), x -> new ArrayList<>()).add(a));
        Map<Long, List<Delivery>> byEntry = new TreeMap<>();
        deliveries.stream().sorted(Comparator.comparingLong(Delivery::receivedMicros).thenComparingLong(Delivery::seq))
                .forEach(d -> byEntry.computeIfAbsent(d.entryId(), x -> new ArrayList<>()).add(d));
        Judgement judgement = new Judgement(faults, mode, losses);
        byEntry.forEach((entry, ds) -> judgement.deliveriesOf(entry, ds, auditByEntry.getOrDefault(entry, List.of())));
        judgement.outcomes(end, byEntry);
        return new AuditChecker.Result(judgement.counts, judgement.lines, audit.size());
    }

    /** One run's judgement as it is made: the count per class and the first violation lines. */
    private static final class Judgement {
        private final List<FaultEvent> faults;
        private final Mode mode;
        private final List<ReportedLoss> losses;
        private final List<FaultEvent> dataLoss;
        private final Map<String, Integer> counts = new LinkedHashMap<>();
        private final List<String> lines = new ArrayList<>();

        Judgement(List<FaultEvent> faults, Mode mode, List<ReportedLoss> losses) {
            this.faults = faults;
            this.mode = mode;
            this.losses = losses;
            this.dataLoss = faults.stream().filter(FaultEvent::losesCoordinatorState).toList();
            ALL.forEach(c -> counts.put(c, 0));
            counts.put(FROZEN_SENDER, 0);
            if (!mode.recordedClaims()) {
                counts.remove(EMIT_WITHOUT_CLAIM);
            }
        }

        /** Every delivery of one entry, in the order received. */
        void deliveriesOf(long entry, List<Delivery> ds, List<AuditRecord> rowAudit) {
            FenceReuse.judge(ds, !mode.recordedClaims(), dataLoss, (kind, what) -> violation(kind, entry, what));
            for (int i = 0; i < ds.size(); i++) {
                Delivery d = ds.get(i);
                long fence = d.fence() == null ? 0 : d.fence();
                Mode sender = mode.forWorker(d.worker());
                RowState at = RowState.atReceipt(rowAudit, d, fence, faults, sender);
                boolean frozen = frozenSender(rowAudit, fence, d, faults, sender);
                boolean zombie = supersededFence(entry, d, at, fence, frozen);
                if (sender.recordedClaims()) {
                    claimBeforeEmit(entry, d, at, fence, frozen, zombie, rowAudit);
                }
                if (i > 0 && !zombie) { // a zombie's repeat is its freeze, reported as such
                    repeat(entry, ds.get(i - 1), d, rowAudit);
                }
            }
        }

        /** (4) a superseded fence reaching the downstream; true when a frozen sender explains it (a zombie). */
        private boolean supersededFence(long entry, Delivery d, RowState at, long fence, boolean frozen) {
            if (at != null && (at.mark() > fence || (mode.leanRows() && at.mark() == fence))) {
                violation(frozen ? FROZEN_SENDER : SUPERSEDED_FENCE, entry, "delivered under fence " + fence + " by "
                        + d.worker() + " at " + d.receivedMicros() + " µs, when the row's fence_high_water was already "
                        + at.mark() + " (since " + at.at() + " µs)");
                return frozen;
            }
            return false;
        }

        /** (5) claim before emit, recorded claims; a zombie already counted is not counted twice. */
        private void claimBeforeEmit(long entry, Delivery d, RowState at, long fence, boolean frozen, boolean zombie,
                                     List<AuditRecord> rowAudit) {
            String why = RowState.withoutLiveClaim(at, fence, d, rowAudit, faults, mode);
            if (!why.isEmpty() && frozen) {
                if (!zombie) {
                    violation(FROZEN_SENDER, entry, "delivered under fence " + fence + " by "
                            + d.worker() + " at " + d.receivedMicros() + " µs after a freeze, but " + why);
                }
            } else if (!why.isEmpty()) {
                violation(EMIT_WITHOUT_CLAIM, entry, "delivered under fence " + fence + " by "
                        + d.worker() + " at " + d.receivedMicros() + " µs, but " + why);
            }
        }

        /** (6) repeats; one worker's repeat under the same fence is judged as {@value #FENCE_REPEATED} alone. */
        private void repeat(long entry, Delivery earlier, Delivery d, List<AuditRecord> rowAudit) {
            if (earlier.fence() != null && earlier.fence().equals(d.fence())
                    && String.valueOf(earlier.worker()).equals(String.valueOf(d.worker()))) {
                return;
            }
            String cause = explainRepeat(earlier, d, rowAudit, faults, mode.forWorker(earlier.worker()), losses);
            if (cause.isEmpty()) {
                violation(UNEXPLAINED_DUPLICATE, entry, "delivered under fence " + earlier.fence()
                        + " by " + earlier.worker() + " at " + earlier.receivedMicros() + " µs and again under fence "
                        + d.fence() + " by " + d.worker() + " at " + d.receivedMicros()
                        + " µs, with no expiry, release or ambiguous provider fault between them in the evidence");
            }
        }

        /** (2) outcome truth. */
        void outcomes(FinalState end, Map<Long, List<Delivery>> byEntry) {
            for (FinalState.Row row : end.rows()) {
                if (!"DEAD_LETTERED".equals(row.status()) && !"FAILED".equals(row.status())) {
                    continue;
                }
                List<Delivery> ds = byEntry.getOrDefault(row.id(), List.of());
                if (!ds.isEmpty() && ds.stream().noneMatch(d -> ambiguous(d, faults))) {
                    violation(FAILED_BUT_DELIVERED, row.id(), "ended " + row.status() + " though the downstream"
                            + " received it " + ds.size() + " time(s) (first at " + ds.get(0).receivedMicros()
                            + " µs, by " + ds.get(0).worker() + "), with no provider or database fault to make that ambiguous");
                }
            }
        }

        private void violation(String kind, long entry, String what) {
            counts.merge(kind, 1, Integer::sum);
            if (lines.size() < MAX_VIOLATION_LINES) {
                lines.add("[" + kind + "] entry " + entry + ": " + what);
            }
        }
    }

    /** Every {@code lost} or {@code abandoned} line of the histories, as {@link ReportedLoss}es. */
    public static List<ReportedLoss> lossesReported(List<dev.leasebox.chaos.history.HistoryEvent> history) {
        return history.stream().filter(e -> dev.leasebox.chaos.history.HistoryEvent.LOST.equals(e.kind())
                        || dev.leasebox.chaos.history.HistoryEvent.ABANDONED.equals(e.kind()))
                .map(e -> new ReportedLoss(e.entry(), e.owner(), e.t())).toList();
    }

    /** Why {@code later} repeated {@code earlier}, or empty when the evidence does not say. */
    private static String explainRepeat(Delivery earlier, Delivery later, List<AuditRecord> rowAudit, List<FaultEvent> faults,
                                        Mode mode, List<ReportedLoss> losses) {
        if (ambiguous(earlier, faults)) {
            return "ambiguous";
        }
        long f = earlier.fence() == null ? 0 : earlier.fence();
        if (mode.recordedClaims()) {
            // the earlier delivery's claim ended before the repeat (possibly even before the earlier delivery: a
            // zombie's late emission)
            for (AuditRecord a : rowAudit) {
                if (a.atMicros() >= later.receivedMicros() + Math.max(1, mode.receiptResolutionMicros())
                        || a.oldClaimToken() == null || a.oldClaimToken() != f || TERMINAL.contains(a.newStatus())) {
                    continue;
                }
                if (a.newClaimToken() == null) {
                    return "loss"; // released by its holder (the row not finished)
                }
                if (a.newClaimToken() > f && a.oldExpiresMicros() != null
                        && a.oldExpiresMicros() <= a.atMicros() + mode.expiryToleranceMicros()) {
                    return "expiry";
                }
            }
            return "";
        }
        boolean otherFence = later.fence() == null || later.fence() != f;
        boolean leaseEnder = faults.stream().anyMatch(x -> ENDS_LEASES.contains(x.fault()) && x.t() * 1000 <= later.receivedMicros());
        if (otherFence && leaseEnder) {
            return "fault";
        }
        // a higher token after the earlier sender reported the claim lost: another grant, or (lean partition claims)
        // the same grant handing out again a row it gave up, under a token derived above the earlier one
        boolean after = later.fence() != null && later.fence() > f;
        boolean reportedLost = losses.stream().anyMatch(l -> l.entry() == earlier.entryId()
                && l.owner().equals(earlier.worker()) && l.t() * 1000 <= later.receivedMicros());
        return after && reportedLost ? "loss" : "";
    }

    /**
     * Whether the worker that sent {@code d} may not have learnt it was delivered: a provider-fault window (timeouts
     * after delivering) stood when it was received, or a database fault came soon after it.
     */
    static boolean ambiguous(Delivery d, List<FaultEvent> faults) {
        long r = d.receivedMicros();
        long windowStart = Long.MAX_VALUE;
        for (FaultEvent f : faults.stream().sorted(Comparator.comparingLong(FaultEvent::t)).toList()) {
            long t = f.t() * 1000;
            if (FaultEvent.PROVIDER_FAULTS.equals(f.fault())) {
                windowStart = Math.min(windowStart, t);
            } else if (FaultEvent.PROVIDER_HEALTHY.equals(f.fault()) && windowStart != Long.MAX_VALUE) {
                if (windowStart <= r && r <= t + PROVIDER_WINDOW_SLACK_MICROS) {
                    return true;
                }
                windowStart = Long.MAX_VALUE;
            } else if (AMBIGUOUS_OUTCOME.contains(f.fault()) && r <= t && t <= r + DATABASE_FAULT_SLACK_MICROS) {
                return true;
            }
        }
        return windowStart <= r; // a window never closed
    }

    /**
     * Whether the harness resumed {@code d}'s sender (it had been frozen) after the claim under {@code fence} was
     * recorded (lean: within {@link #FROZEN_LOOKBACK_MICROS}) and before {@code d} was received.
     */
    private static boolean frozenSender(List<AuditRecord> rowAudit, long fence, Delivery d, List<FaultEvent> faults, Mode mode) {
        long from = mode.recordedClaims()
                ? rowAudit.stream().filter(a -> a.newClaimToken() != null && a.newClaimToken() == fence)
                        .mapToLong(AuditRecord::atMicros).min().orElse(Long.MAX_VALUE)
                : d.receivedMicros() - FROZEN_LOOKBACK_MICROS;
        return faults.stream().anyMatch(f -> FaultEvent.RESUME.equals(f.fault()) && f.target().equals(d.worker())
                && from <= f.t() * 1000 && f.t() * 1000 <= d.receivedMicros());
    }

}
