package dev.leasebox.lease.hazelcast;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.client.config.XmlClientConfigBuilder;
import com.hazelcast.client.config.YamlClientConfigBuilder;
import com.hazelcast.config.Config;
import com.hazelcast.config.ListenerConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.LifecycleEvent;
import dev.leasebox.lease.LeaseManagerException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Starts the Hazelcast instance a {@link HazelcastLeaseConfig} describes, failing in one line that
 * names what was tried when the cluster cannot be reached in {@link HazelcastLeaseConfig#connectTimeout()}.
 */
final class HazelcastConnector {

    private HazelcastConnector() {
    }

    /** A client or member started from {@code config}; the caller owns and shuts it down. */
    static HazelcastInstance start(HazelcastLeaseConfig config) {
        switch (config.mode()) {
            case CLIENT_ADDRESSES:
                return startClient(clientFromAddresses(config), config, "cluster '" + config.clusterName() + "' at " + config.addresses());
            case CLIENT_FILE:
                ClientConfig fromFile = clientFromFile(config.configFile().orElseThrow());
                return startClient(fromFile, config, "cluster '" + fromFile.getClusterName() + "' at "
                        + fromFile.getNetworkConfig().getAddresses() + " (from " + config.configFile().orElseThrow() + ")");
            case MEMBER_FILE:
                return startMember(config.configFile().orElseThrow());
            default:
                throw new IllegalArgumentException("mode " + config.mode() + " uses an instance the caller started: call HazelcastLeaseManager.using(instance, config)");
        }
    }

    private static ClientConfig clientFromAddresses(HazelcastLeaseConfig config) {
        ClientConfig client = new ClientConfig();
        client.setClusterName(config.clusterName());
        client.getNetworkConfig().setAddresses(config.addresses());
        config.username().ifPresent(user -> client.getSecurityConfig()
                .setUsernamePasswordIdentityConfig(user, config.password().orElse("")));
        client.setProperty("hazelcast.client.invocation.timeout.seconds",
                Long.toString(Math.max(1, config.operationTimeout().toSeconds())));
        return client;
    }

    private static ClientConfig clientFromFile(Path file) {
        requireReadable(file, "client");
        try {
            String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
            if (name.endsWith(".yaml") || name.endsWith(".yml")) {
                return new YamlClientConfigBuilder(file.toFile()).build();
            }
            return new XmlClientConfigBuilder(file.toFile()).build();
        } catch (IOException | RuntimeException e) {
            throw new LeaseManagerException("Hazelcast client config " + file + " is invalid: " + e.getMessage(), e);
        }
    }

    private static HazelcastInstance startMember(Path file) {
        requireReadable(file, "member");
        Config member;
        try {
            member = Config.loadFromFile(file.toFile());
        } catch (IOException | RuntimeException e) {
            throw new LeaseManagerException("Hazelcast member config " + file + " is invalid: " + e.getMessage(), e);
        }
        if (member.getCPSubsystemConfig().getCPMemberCount() == 0) {
            throw new LeaseManagerException(noCpSubsystem("member config " + file));
        }
        try {
            return Hazelcast.newHazelcastInstance(member);
        } catch (RuntimeException e) {
            throw new LeaseManagerException("Hazelcast member from " + file + " did not start: " + e.getMessage(), e);
        }
    }

    /**
     * Starts asynchronously and waits for the first connection ourselves: the start is bounded by
     * connectTimeout while reconnection after a later outage keeps the client's own (unbounded) policy.
     */
    private static HazelcastInstance startClient(ClientConfig client, HazelcastLeaseConfig config, String target) {
        CountDownLatch connected = new CountDownLatch(1);
        client.getConnectionStrategyConfig().setAsyncStart(true);
        client.addListenerConfig(new ListenerConfig((com.hazelcast.core.LifecycleListener) event -> {
            if (event.getState() == LifecycleEvent.LifecycleState.CLIENT_CONNECTED) {
                connected.countDown();
            }
        }));
        HazelcastInstance instance;
        try {
            instance = HazelcastClient.newHazelcastClient(client);
        } catch (RuntimeException e) {
            throw new LeaseManagerException("Hazelcast client for " + target + " did not start: " + e.getMessage(), e);
        }
        boolean ok;
        try {
            ok = connected.await(config.connectTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ok = false;
        }
        if (!ok) {
            instance.getLifecycleService().terminate();
            throw new LeaseManagerException("Hazelcast " + target + " unreachable within " + config.connectTimeout()
                    + ": check the addresses, the cluster name and the credentials, and that the members are running");
        }
        return instance;
    }

    private static void requireReadable(Path file, String kind) {
        if (!Files.isReadable(file)) {
            throw new LeaseManagerException("Hazelcast " + kind + " config file " + file.toAbsolutePath() + " does not exist or is not readable");
        }
    }

    /** The one-line explanation for a cluster that runs FencedLock without Raft. */
    static String noCpSubsystem(String where) {
        return "Hazelcast " + where + " has no CP Subsystem (cp-member-count 0), so FencedLock would run in unsafe mode"
                + " without Raft and its fences could repeat: set cp-subsystem cp-member-count to 3 or more on every member"
                + " (Hazelcast 5.3-5.4 community, or Enterprise with a licence from 5.5 on)";
    }
}
