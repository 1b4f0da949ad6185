package dev.leasebox.lease.hazelcast;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class GrantBudgetTest {

    @Test
    void aThreadFindingTheBudgetEmptyWaitsForOpenReservationsAndTakesOneGivenBack() throws Exception {
        GrantBudget budget = new GrantBudget(2);
        assertThat(budget.reserve()).isTrue();
        assertThat(budget.reserve()).isTrue();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            CompletableFuture<Boolean> third = CompletableFuture.supplyAsync(() -> reserve(budget), pool);
            await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(2)).until(() -> !third.isDone());

            budget.giveBack(); // a lock that was not granted: its grant goes to the waiting thread

            await().atMost(Duration.ofSeconds(5)).until(third::isDone);
            assertThat(third.get()).isTrue();
            budget.used();
            budget.used();
            assertThat(budget.reserve()).as("both grants used, none open: nothing left, no wait").isFalse();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aWaitingThreadGivesUpWhenTheOpenReservationsAreUsed() throws Exception {
        GrantBudget budget = new GrantBudget(1);
        assertThat(budget.reserve()).isTrue();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            CompletableFuture<Boolean> second = CompletableFuture.supplyAsync(() -> reserve(budget), pool);
            await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(2)).until(() -> !second.isDone());

            budget.used();

            await().atMost(Duration.ofSeconds(5)).until(second::isDone);
            assertThat(second.get()).isFalse();
        } finally {
            pool.shutdownNow();
        }
    }

    private static boolean reserve(GrantBudget budget) {
        try {
            return budget.reserve();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
