package dev.leasebox.bench;

import dev.leasebox.outbox.Completion;
import dev.leasebox.outbox.CompletionOutcome;
import dev.leasebox.outbox.EmissionResult;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class BenchCompletionLedgerTest {

    @Test
    void anEntryCompletedTwiceIsReportedOnce() {
        CompletionLedger ledger = new CompletionLedger();
        ledger.delivered(1);
        ledger.delivered(2);
        ledger.delivered(2);
        ledger.delivered(2);
        ledger.delivered(3);
        assertThat(ledger.completedTotal()).isEqualTo(5);
        assertThat(ledger.finalizedTwice()).containsExactly(2L);
    }

    @Test
    void onlyDeliveredCompletionsCountAsFinalized() {
        CompletionLedger ledger = new CompletionLedger();
        CompletionOutcome whatever = new CompletionOutcome.Missing(1, 7);
        ledger.completed(7, new Completion.Released("shutting down"), whatever);
        ledger.completed(7, new Completion.Delivered(EmissionResult.at(java.time.Instant.EPOCH)), whatever);
        ledger.completionRefused(7, new Completion.Delivered(EmissionResult.at(java.time.Instant.EPOCH)), whatever);
        assertThat(ledger.completedTotal()).isEqualTo(1);
        assertThat(ledger.finalizedTwice()).isEmpty();
        assertThat(ledger.refusedTotal()).isEqualTo(1);
    }

    @Test
    void countsStayExactUnderConcurrentWorkers() throws InterruptedException {
        CompletionLedger ledger = new CompletionLedger();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        CountDownLatch go = new CountDownLatch(1);
        for (int w = 0; w < 4; w++) {
            int worker = w;
            pool.execute(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                for (long id = worker; id < 40_000; id += 4) {
                    ledger.delivered(id);
                }
                ledger.delivered(123_456); // every worker finalizes this one: a duplicate 4 times over
            });
        }
        go.countDown();
        pool.shutdown();
        assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        assertThat(ledger.completedTotal()).isEqualTo(40_004);
        assertThat(ledger.finalizedTwice()).containsExactly(123_456L);
    }
}
