package dev.leasebox.testkit;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The ports a local coordinator's processes are configured with must all differ: a ZooKeeper
 * {@code zoo.cfg} that names one port twice is refused (exit code 2), which once failed a chaos run's
 * start when its nine ports were asked for one at a time.
 */
class LoopbackPortsTest {

    @Test
    void portsChosenTogetherAreAllDifferentAndReleased() {
        List<Integer> ports = LoopbackPorts.free(64);

        assertThat(ports).hasSize(64).doesNotHaveDuplicates().allSatisfy(port -> assertThat(port).isBetween(1, 65_535));
        assertThat(ports).noneMatch(LoopbackPortsTest::listening);
    }

    @Test
    void aProbeConnectedToItselfIsNotAListener() throws IOException {
        int port = LoopbackPorts.free();
        try (Socket probe = new Socket()) {
            probe.setReuseAddress(true);
            probe.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            probe.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port)); // simultaneous open: no listener

            assertThat(probe.isConnected()).isTrue();
            assertThat(LoopbackPorts.reachedAListener(probe)).isFalse();
        }
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             Socket client = new Socket(InetAddress.getLoopbackAddress(), listener.getLocalPort())) {
            assertThat(LoopbackPorts.reachedAListener(client)).isTrue();
            assertThat(LoopbackPorts.isListening(listener.getLocalPort())).isTrue();
        }
    }

    @Test
    void aCountBelowOneIsRefused() {
        assertThatThrownBy(() -> LoopbackPorts.free(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("count must be at least 1, was 0");
    }

    private static boolean listening(int port) {
        try (Socket ignored = new Socket("127.0.0.1", port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
