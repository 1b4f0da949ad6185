package dev.leasebox.cli.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * Free ports on the loopback address, for coordinators this process starts (embedded CP members, the bench's
 * redis-server). Never for production addresses. The test kit keeps the same class for its own servers: the
 * command must not ship the test kit, the test kit cannot depend on the command (whose tests use it), and the one
 * module both depend on, lease-api, holds no port pickers.
 */
public final class LoopbackPorts {

    private LoopbackPorts() {
    }

    /**
     * {@code count} ports free on 127.0.0.1 now, all different: each is held open until all are
     * chosen, then released for the caller's servers to bind. (Asking for one port {@code count}
     * times can return a port twice, since a port released is free to be handed out again; a
     * ZooKeeper {@code zoo.cfg} naming one port twice is refused, exit code 2.) Another process may
     * still take a port between this call and the bind: a caller that must start reliably retries on
     * fresh ports.
     *
     * @throws UncheckedIOException naming the loopback address when no port can be had
     */
    public static List<Integer> free(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1, was " + count);
        }
        List<ServerSocket> held = new ArrayList<>();
        try {
            List<Integer> ports = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                held.add(socket);
                ports.add(socket.getLocalPort());
            }
            return List.copyOf(ports);
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on " + InetAddress.getLoopbackAddress().getHostAddress()
                    + " (" + held.size() + " of " + count + " found): " + e.getMessage(), e);
        } finally {
            for (ServerSocket socket : held) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // a port not released stays this JVM's; the server that cannot bind it fails and names it
                }
            }
        }
    }

    /** One port free on 127.0.0.1 now. */
    public static int free() {
        return free(1).get(0);
    }

    /**
     * Whether something accepts TCP connections on 127.0.0.1:{@code port} now; a connection of the probe to itself,
     * which Linux can make on a port of its ephemeral range that nothing listens on, does not count.
     */
    public static boolean isListening(int port) {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return reachedAListener(socket);
        } catch (IOException e) {
            return false;
        }
    }

    /** False for a socket connected to itself (TCP simultaneous open): no listener took that connection. */
    static boolean reachedAListener(Socket connected) {
        return !connected.getLocalSocketAddress().equals(connected.getRemoteSocketAddress());
    }
}
