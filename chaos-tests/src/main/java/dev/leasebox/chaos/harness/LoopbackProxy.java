package dev.leasebox.chaos.harness;

import dev.leasebox.testkit.LoopbackPorts;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * A TCP forwarder on a free loopback port, standing for the one address clients know (a virtual IP, a DNS name)
 * in front of whichever server is primary: every accepted connection is piped to the current target port.
 * {@link #switchTo} points new connections at another port and closes every connection open now, as a failover
 * that moves the address does. Loopback only.
 */
public final class LoopbackProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final List<Socket> open = new ArrayList<>();
    private volatile int target;
    private volatile boolean closed;

    private LoopbackProxy(ServerSocket listener, int target) {
        this.listener = listener;
        this.target = target;
    }

    public static LoopbackProxy start(int target) {
        try {
            ServerSocket listener = new ServerSocket(LoopbackPorts.free(), 50, InetAddress.getLoopbackAddress());
            LoopbackProxy proxy = new LoopbackProxy(listener, target);
            Thread accept = new Thread(proxy::acceptLoop, "chaos-proxy-" + listener.getLocalPort());
            accept.setDaemon(true);
            accept.start();
            return proxy;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen for the coordinator's proxy: " + e.getMessage(), e);
        }
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** New connections go to {@code port}; every connection open now is closed (clients must reconnect). */
    public void switchTo(int port) {
        target = port;
        List<Socket> dropping;
        synchronized (open) {
            dropping = new ArrayList<>(open);
            open.clear();
        }
        dropping.forEach(LoopbackProxy::closeQuietly);
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Socket server;
                try {
                    server = new Socket(InetAddress.getLoopbackAddress(), target);
                } catch (IOException refused) {
                    closeQuietly(client); // the target is down: the client sees a dropped connection and retries
                    continue;
                }
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                synchronized (open) {
                    open.add(client);
                    open.add(server);
                }
                pipe(client, server);
                pipe(server, client);
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("chaos: proxy on port " + port() + ": " + e.getMessage());
                }
            }
        }
    }

    private void pipe(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[16384];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // one side closed: close both
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                synchronized (open) {
                    open.remove(from);
                    open.remove(to);
                }
            }
        }, "chaos-proxy-pipe");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        switchTo(target);
    }
}
