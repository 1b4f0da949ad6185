package dev.leasebox.bench;

import dev.leasebox.claim.leased.LeasedOutboxClaimStore;
import dev.leasebox.lease.ForwardingLeaseManager;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.LeaseRequest;

import java.io.PrintStream;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * What a {@link FailoverWorker} tells the bench on stdout, one line per event, each with the wall-clock
 * time in epoch microseconds (the bench and its workers share one machine, so one clock):
 * <pre>
 * REQ &lt;micros&gt; id,id,…     a lease acquire sent for these rows (time taken before sending)
 * GOT &lt;micros&gt; id,id,…|-   the rows that acquire granted (time taken on its return)
 * CLAIM &lt;micros&gt; id,id,…   claims recorded on the rows (the drain's batch, after recording)
 * EMIT &lt;id&gt; &lt;micros&gt;       an emission starting
 * </pre>
 * The bench breaks each orphan's failover time into phases with them. Tracing changes nothing the
 * worker does, beyond the cost of printing.
 */
final class FailoverTrace {

    private final PrintStream out;

    FailoverTrace(PrintStream out) {
        this.out = Objects.requireNonNull(out, "out");
    }

    static long nowMicros() {
        Instant at = Instant.now();
        return at.getEpochSecond() * 1_000_000 + at.getNano() / 1_000;
    }

    void ids(String kind, long micros, Collection<Long> ids) {
        String list = ids.isEmpty() ? "-" : ids.stream().map(String::valueOf).collect(Collectors.joining(","));
        line(kind + " " + micros + " " + list);
    }

    void emit(long id, long micros) {
        line("EMIT " + id + " " + micros);
    }

    private void line(String text) {
        synchronized (out) {
            out.println(text);
            out.flush();
        }
    }

    /** A lease manager that traces each acquire's requested and granted rows; everything else passes through. */
    static LeaseManager tracing(LeaseManager delegate, FailoverTrace trace) {
        return new ForwardingLeaseManager(delegate) {
            @Override
            public List<Lease> acquire(LeaseRequest request) {
                trace.ids("REQ", nowMicros(), rows(request.keys()));
                List<Lease> granted = delegate.acquire(request);
                trace.ids("GOT", nowMicros(), rows(granted.stream().map(Lease::key).toList()));
                return granted;
            }
        };
    }

    private static List<Long> rows(Collection<String> keys) {
        return keys.stream().map(LeasedOutboxClaimStore::entryIdOf).flatMap(java.util.Optional::stream).toList();
    }
}
