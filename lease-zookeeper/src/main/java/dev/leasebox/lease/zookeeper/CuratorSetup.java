package dev.leasebox.lease.zookeeper;

import dev.leasebox.lease.LeaseManagerException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.framework.imps.DefaultACLProvider;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The Curator client a manager starts for itself, and what any client needs before a manager uses
 * it: a connection within the connection timeout, and the leases and incarnations roots.
 */
final class CuratorSetup {

    private CuratorSetup() {
    }

    /** The ACL of every node a manager creates: creator-only when a digest is configured. */
    static List<ACL> acl(ZooKeeperLeaseConfig config) {
        return config.digest().isPresent() ? ZooDefs.Ids.CREATOR_ALL_ACL : ZooDefs.Ids.OPEN_ACL_UNSAFE;
    }

    /** A started client of {@code config}'s ensemble, authenticated with its digest when one is set. */
    static CuratorFramework startClient(ZooKeeperLeaseConfig config) {
        CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
                .connectString(config.connectString())
                .sessionTimeoutMs((int) config.sessionTimeout().toMillis())
                .connectionTimeoutMs((int) Math.min(config.connectionTimeout().toMillis(), config.sessionTimeout().toMillis()))
                .retryPolicy(new ExponentialBackoffRetry(100, 3))
                .aclProvider(config.digest().isPresent() ? creatorOnly() : new DefaultACLProvider());
        config.digest().ifPresent(digest -> builder.authorization("digest", digest.getBytes(StandardCharsets.UTF_8)));
        CuratorFramework curator = builder.build();
        curator.start();
        return curator;
    }

    /**
     * Waits at most the connection timeout for {@code curator} to connect and creates the leases and
     * incarnations roots; on failure closes the client when {@code ownsClient} and throws one line
     * naming the ensemble.
     */
    static void prepare(CuratorFramework curator, ZooKeeperLeaseConfig config, boolean ownsClient) {
        try {
            if (!curator.blockUntilConnected((int) config.connectionTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                throw new LeaseManagerException("ZooKeeper ensemble at " + config.connectString() + " is not reachable within "
                        + config.connectionTimeout() + ": check leasebox.zookeeper.connect-string and that the servers are running");
            }
            LeasePaths paths = new LeasePaths(config.namespace());
            createIfAbsent(curator, paths.root());
            createIfAbsent(curator, paths.incarnationsRoot());
        } catch (LeaseManagerException e) {
            closeIfOwned(curator, ownsClient);
            throw e;
        } catch (InterruptedException e) {
            closeIfOwned(curator, ownsClient);
            Thread.currentThread().interrupt();
            throw new LeaseManagerException("interrupted while connecting to ZooKeeper at " + config.connectString(), e);
        } catch (Exception e) {
            closeIfOwned(curator, ownsClient);
            throw new LeaseManagerException("could not prepare /" + config.namespace() + "/leases and /incarnations on ZooKeeper at "
                    + config.connectString() + ": " + e + " (check leasebox.zookeeper.digest and the ACLs)", e);
        }
    }

    private static void closeIfOwned(CuratorFramework curator, boolean ownsClient) {
        if (ownsClient) {
            curator.close();
        }
    }

    private static void createIfAbsent(CuratorFramework curator, String path) throws Exception {
        try {
            curator.create().creatingParentsIfNeeded().forPath(path);
        } catch (KeeperException.NodeExistsException alreadyThere) {
            // created by another manager: fine
        }
    }

    private static ACLProvider creatorOnly() {
        return new ACLProvider() {
            @Override
            public List<ACL> getDefaultAcl() {
                return ZooDefs.Ids.CREATOR_ALL_ACL;
            }

            @Override
            public List<ACL> getAclForPath(String path) {
                return ZooDefs.Ids.CREATOR_ALL_ACL;
            }
        };
    }
}
