package dev.leasebox.chaos.worker;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class FaultPointsTest {

    @TempDir
    Path dir;

    @Test
    void anUnarmedPointLetsEveryThreadThrough() {
        assertThat(FaultPoints.hold(dir, "p-unarmed", "x")).isFalse();
        assertThat(FaultPoints.fail(dir, "p-unarmed", "x")).isFalse();
        assertThat(FaultPoints.reached(dir, "p-unarmed", 1)).isEmpty();
    }

    @Test
    void theFirstThreadAtAnArmedPointIsHeldUntilReleasedAndTheNextPassesThrough() throws Exception {
        int n = FaultPoints.arm(dir, "p-hold");
        CompletableFuture<Boolean> first = CompletableFuture.supplyAsync(() -> FaultPoints.hold(dir, "p-hold", "keys [a, b]"));

        await().atMost(Duration.ofSeconds(10)).until(() -> FaultPoints.reached(dir, "p-hold", n).isPresent());
        assertThat(FaultPoints.reached(dir, "p-hold", n).orElseThrow()).endsWith(": keys [a, b]");
        assertThat(FaultPoints.hold(dir, "p-hold", "second")).as("a second thread under the same arming").isFalse();
        assertThat(first).isNotDone();

        FaultPoints.release(dir, "p-hold", n);
        assertThat(first.get(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void eachArmingActsOnceAndAFailingPointFailsOneCallPerArming() {
        assertThat(FaultPoints.arm(dir, "p-fail")).isEqualTo(1);
        assertThat(FaultPoints.fail(dir, "p-fail", "lock 1")).isTrue();
        assertThat(FaultPoints.fail(dir, "p-fail", "lock 2")).isFalse();
        assertThat(FaultPoints.reached(dir, "p-fail", 1)).hasValueSatisfying(d -> assertThat(d).endsWith(": lock 1"));

        assertThat(FaultPoints.arm(dir, "p-fail")).isEqualTo(2);
        assertThat(FaultPoints.fail(dir, "p-fail", "lock 3")).isTrue();
        assertThat(FaultPoints.reached(dir, "p-fail", 2)).hasValueSatisfying(d -> assertThat(d).endsWith(": lock 3"));
    }
}
