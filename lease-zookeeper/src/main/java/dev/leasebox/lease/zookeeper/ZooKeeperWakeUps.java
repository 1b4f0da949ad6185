package dev.leasebox.lease.zookeeper;

import dev.leasebox.lease.LeaseManagerException;
import dev.leasebox.lease.WakeUpChannel;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.ACL;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Wake-up hints through one znode per topic, {@code /<namespace>/wake-ups/<encoded topic>}: a publish writes the
 * hint as the node's data, and each subscription watches the node (a Curator {@link CuratorCache}), re-reading
 * it after every change. A watch fires once per change it sees, so hints written close together may arrive as
 * the last of them. Each publish is a ZooKeeper write (a quorum round trip), which is why writers send hints
 * from a background thread and coalesce them. After a reconnection the cache reads the node again and the
 * listener is told {@link WakeUpChannel.Listener#subscribed()}: changes while disconnected may have been missed.
 */
final class ZooKeeperWakeUps implements WakeUpChannel.Subscription {

    static final String WAKE_UPS = "wake-ups";

    private final CuratorFramework curator;
    private final CuratorCache cache;
    private final ConnectionStateListener reconnections;

    private ZooKeeperWakeUps(CuratorFramework curator, String path, WakeUpChannel.Listener listener) {
        this.curator = curator;
        this.cache = CuratorCache.build(curator, path, CuratorCache.Options.SINGLE_NODE_CACHE);
        this.cache.listenable().addListener(CuratorCacheListener.builder()
                .forCreatesAndChanges((before, node) -> listener.hint(new String(node.getData(), StandardCharsets.UTF_8)))
                .forInitialized(listener::subscribed)
                .build());
        this.reconnections = (client, state) -> {
            if (state == ConnectionState.RECONNECTED) {
                listener.subscribed();
            }
        };
    }

    static String path(String namespace, String topic) {
        return "/" + namespace + "/" + WAKE_UPS + "/" + URLEncoder.encode(topic, StandardCharsets.UTF_8);
    }

    static ZooKeeperWakeUps subscribe(CuratorFramework curator, String path, WakeUpChannel.Listener listener) {
        ZooKeeperWakeUps subscription = new ZooKeeperWakeUps(curator, path, listener);
        curator.getConnectionStateListenable().addListener(subscription.reconnections);
        subscription.cache.start();
        return subscription;
    }

    /** Writes {@code hint} as the topic node's data, creating the node (and its parents) the first time. */
    static void publish(CuratorFramework curator, List<ACL> acl, String path, String hint, String where) {
        byte[] data = hint.getBytes(StandardCharsets.UTF_8);
        try {
            try {
                curator.setData().forPath(path, data);
            } catch (KeeperException.NoNodeException missing) {
                try {
                    curator.create().creatingParentsIfNeeded().withACL(acl).forPath(path, data);
                } catch (KeeperException.NodeExistsException raced) {
                    curator.setData().forPath(path, data);
                }
            }
        } catch (Exception e) {
            throw new LeaseManagerException("could not publish a wake-up on ZooKeeper at " + where + " (" + path + "): " + e, e);
        }
    }

    @Override
    public void close() {
        curator.getConnectionStateListenable().removeListener(reconnections);
        cache.close();
    }
}
