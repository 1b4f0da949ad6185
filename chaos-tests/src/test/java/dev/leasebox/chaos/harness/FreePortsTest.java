package dev.leasebox.chaos.harness;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ports a coordinator's processes are configured with must all differ: a ZooKeeper {@code zoo.cfg}
 * that names one port twice is refused (exit code 2), which once failed a chaos run's start.
 */
class FreePortsTest {

    @Test
    void portsChosenTogetherAreAllDifferentAndReleased() {
        List<Integer> ports = ChaosProcess.freePorts(64);

        assertThat(ports).hasSize(64).doesNotHaveDuplicates().allSatisfy(port -> assertThat(port).isBetween(1, 65_535));
        assertThat(ports).noneMatch(port -> ChaosProcess.isListening("127.0.0.1", port));
    }
}
