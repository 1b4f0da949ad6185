package dev.leasebox.cli;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Times the demo's kill from the victim's own work: once armed, the victim's next emission stops
 * inside the provider, where the victim provably holds the claims of its batch, and waits there to
 * be killed. A blind kill can land between two batches, when the victim holds nothing.
 */
final class DemoKillSwitch {

    private final CountDownLatch armed = new CountDownLatch(1);
    private final CountDownLatch caught = new CountDownLatch(1);

    /** From the demo's main loop: the victim's next emission is to be caught. */
    void arm() {
        armed.countDown();
    }

    /** Waits until the victim stands inside an emission; false when it emitted nothing for {@code patience}. */
    boolean awaitCaught(Duration patience) throws InterruptedException {
        return caught.await(patience.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * From the victim's provider, before it emits: when armed, signals and then parks until the
     * halt interrupts it, so the entry is never emitted and the batch never completes.
     */
    void onEmission() throws InterruptedException {
        if (armed.getCount() == 0) {
            caught.countDown();
            new CountDownLatch(1).await(); // released only by the halt's interrupt
        }
    }
}
