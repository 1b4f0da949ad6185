package dev.leasebox.lease.zookeeper;

import dev.leasebox.testkit.LoopbackPorts;
import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseManagerException;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.lease.PeerRank;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** What the lease manager writes into ZooKeeper, and how it starts. */
class ZooKeeperLeaseNodesIT {

    @RegisterExtension
    static final ZooKeeperServerExtension zk = new ZooKeeperServerExtension();

    private ZooKeeperLeaseManager manager(ZooKeeperLeaseConfig.Builder config) {
        return zk.manager(config);
    }

    private CuratorFramework plainClient() {
        return zk.plainClient();
    }

    @Test
    void aBatchIsOneMultiWhoseEphemeralNodesShareTheCzxidInTheirFences() throws Exception {
        ZooKeeperLeaseManager manager = manager(ZooKeeperTestServers.config(zk.connectString(), Duration.ofSeconds(10)));
        List<String> keys = List.of("nodes-a", "nodes-b", "nodes-c");
        List<Lease> leases = manager.acquire(new LeaseRequest(keys, "owner", Duration.ofMinutes(1)));
        long session = manager.curator().getZookeeperClient().getZooKeeper().getSessionId();

        assertThat(leases).hasSize(3);
        for (Lease lease : leases) {
            Stat stat = new Stat();
            byte[] data = plainClient().getData().storingStatIn(stat).forPath("/leasebox-test/leases/" + lease.key());
            assertThat(stat.getEphemeralOwner()).as("ephemeral, owned by the manager's session").isEqualTo(session);
            assertThat(Fences.czxidOf(lease.fence())).isEqualTo(stat.getCzxid());
            String token = LeaseNodeData.decode(data).orElseThrow().token();
            Stat incarnation = plainClient().checkExists().forPath("/leasebox-test/incarnations/" + token);
            assertThat(incarnation.getCzxid()).as("its incarnation node, created in the same transaction").isEqualTo(stat.getCzxid());
            assertThat(incarnation.getEphemeralOwner()).isEqualTo(session);
        }
        assertThat(leases.stream().map(l -> Fences.czxidOf(l.fence())).distinct()).as("one transaction").hasSize(1);
        assertThat(leases.stream().map(Lease::fence).distinct()).as("distinct fences").hasSize(3);
    }

    @Test
    void renewIsAnIncarnationAndVersionCheckedSetDataThatMovesTheDeadline() throws Exception {
        ZooKeeperLeaseManager manager = manager(ZooKeeperTestServers.config(zk.connectString(), Duration.ofSeconds(10)));
        Lease lease = manager.acquire(new LeaseRequest(List.of("nodes-renew"), "owner", Duration.ofMinutes(1))).get(0);
        String path = "/leasebox-test/leases/nodes-renew";
        LeaseNodeData before = LeaseNodeData.decode(plainClient().getData().forPath(path)).orElseThrow();

        await().atMost(Duration.ofSeconds(2)).until(() -> java.time.Instant.now().isAfter(before.deadline().minus(Duration.ofMinutes(1))));
        assertThat(manager.renew(List.of(lease))).hasSize(1);

        Stat stat = new Stat();
        LeaseNodeData after = LeaseNodeData.decode(plainClient().getData().storingStatIn(stat).forPath(path)).orElseThrow();
        assertThat(stat.getVersion()).isEqualTo(1);
        assertThat(after.deadline()).isAfterOrEqualTo(before.deadline());
        assertThat(after.owner()).isEqualTo("owner");
    }

    @Test
    void aDigestAclKeepsClientsWithoutTheCredentialsFromDeletingLeases() throws Exception {
        ZooKeeperLeaseManager manager = manager(ZooKeeperTestServers.config(zk.connectString(), Duration.ofSeconds(10))
                .namespace("leasebox-acl").digest("leasebox:s3cret"));
        manager.acquire(new LeaseRequest(List.of("guarded"), "owner", Duration.ofMinutes(1)));

        assertThatThrownBy(() -> plainClient().delete().forPath("/leasebox-acl/leases/guarded"))
                .isInstanceOf(KeeperException.NoAuthException.class);
        ZooKeeperLeaseManager peer = manager(ZooKeeperTestServers.config(zk.connectString(), Duration.ofSeconds(10))
                .namespace("leasebox-acl").digest("leasebox:s3cret"));
        assertThat(peer.acquire(new LeaseRequest(List.of("guarded"), "peer", Duration.ofMinutes(1)))).isEmpty();
        assertThat(peer.acquire(new LeaseRequest(List.of("guarded-2"), "peer", Duration.ofMinutes(1)))).hasSize(1);
    }

    /**
     * Two managers that read the same expired node both send a takeover. The first takes the key
     * over; the second's, sent after it, must then fail, not remove the first one's new node (a new
     * node starts at version 0, so a delete at the expired node's version alone could match it). The
     * raw client plays the second manager with the takeover's checks (the incarnation node read and
     * the version read), sent after the takeover: deterministic. {@code FrozenWriterIT} holds a real
     * manager at that point while the new node is renewed.
     */
    @ParameterizedTest(name = "the expired node was renewed {0} times")
    @ValueSource(ints = {0, 1, 2})
    void aKeyTakenOverCannotBeDeletedByAnotherTakerThatReadTheExpiredNode(int renewals) throws Exception {
        String namespace = "leasebox-takeover-" + renewals;
        ZooKeeperLeaseManager holder = manager(ZooKeeperTestServers.config(zk.connectString(), Duration.ofSeconds(10)).namespace(namespace));
        ZooKeeperLeaseManager taker = manager(ZooKeeperTestServers.config(zk.connectString(), Duration.ofSeconds(10)).namespace(namespace));
        String path = "/" + namespace + "/leases/row-1";
        Lease held = holder.acquire(new LeaseRequest(List.of("row-1"), "holder", Duration.ofSeconds(2))).get(0);
        for (int i = 0; i < renewals; i++) {
            held = holder.renew(List.of(held)).get(0);
        }
        CuratorFramework otherTaker = plainClient();
        Stat expired = new Stat();
        String token = LeaseNodeData.decode(otherTaker.getData().storingStatIn(expired).forPath(path)).orElseThrow().token();
        assertThat(expired.getVersion()).isEqualTo(renewals);

        List<Lease> taken = new ArrayList<>();
        await("the holder's deadline to pass and the key to be taken over").atMost(Duration.ofSeconds(15)).pollDelay(Duration.ZERO)
                .until(() -> taken.addAll(taker.acquire(new LeaseRequest(List.of("row-1"), "taker", Duration.ofSeconds(30)))));
        Lease lease = taken.get(0);
        assertThat(lease.fence()).isGreaterThan(held.fence());

        ZooKeeper raw = otherTaker.getZookeeperClient().getZooKeeper();
        assertThatThrownBy(() -> raw.multi(List.of(Op.delete("/" + namespace + "/incarnations/" + token, -1),
                Op.delete(path, expired.getVersion()))))
                .as("the takeover's deletes of the node read, sent after the key was taken over")
                .isInstanceOf(KeeperException.NoNodeException.class);
        assertThat(Fences.czxidOf(lease.fence())).as("the taker's node still stands")
                .isEqualTo(otherTaker.checkExists().forPath(path).getCzxid());
        assertThat(taker.renew(List.of(lease))).as("and its lease renews").hasSize(1);
    }

    @Test
    void liveManagersHoldDistinctPeerRanksThatCloseUpWhenOneLeaves() {
        List<ZooKeeperLeaseManager> managers = new ArrayList<>();
        for (String id : List.of("rank-c", "rank-a", "rank-b")) {
            managers.add(ZooKeeperLeaseManager.start(ZooKeeperTestServers.config(zk.connectString(), Duration.ofSeconds(10))
                    .namespace("leasebox-ranks").memberId(id).build()));
        }
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> managers.stream().allMatch(m -> m.peerRank().map(PeerRank::peers).orElse(0) == 3));
            assertThat(managers).extracting(m -> m.peerRank().orElseThrow().rank()).as("sorted by member id: c, a, b")
                    .containsExactly(2, 0, 1);

            managers.remove(1).close();

            await().atMost(Duration.ofSeconds(10)).until(() -> managers.stream().allMatch(m -> m.peerRank().map(PeerRank::peers).orElse(0) == 2));
            assertThat(managers).extracting(m -> m.peerRank().orElseThrow().rank()).containsExactly(1, 0);
        } finally {
            managers.forEach(ZooKeeperLeaseManager::close);
        }
    }

    @Test
    void managersJoinTheMembershipGroupAndLeaveItOnClose() {
        ZooKeeperLeaseManager a = manager(ZooKeeperTestServers.config(zk.connectString(), Duration.ofSeconds(10)).memberId("member-a"));
        ZooKeeperLeaseManager b = ZooKeeperLeaseManager.start(
                ZooKeeperTestServers.config(zk.connectString(), Duration.ofSeconds(10)).memberId("member-b").build());

        await().atMost(Duration.ofSeconds(10)).until(() -> a.liveMembers().containsAll(List.of("member-a", "member-b")));
        b.close();
        await().atMost(Duration.ofSeconds(10)).until(() -> !a.liveMembers().contains("member-b"));
    }

    @Test
    void aSessionTimeoutTheServerClampsIsReportedAsAWarningNamingBothValues() {
        ch.qos.logback.classic.Logger logger = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(ZooKeeperLeaseManager.class);
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> appender = new ch.qos.logback.core.read.ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        try {
            // tickTime 500 ms: the server grants at most 20 x 500 = 10 000 ms
            manager(ZooKeeperTestServers.config(zk.connectString(), Duration.ofSeconds(60)));
        } finally {
            logger.detachAppender(appender);
        }
        assertThat(appender.list)
                .filteredOn(event -> event.getLevel() == ch.qos.logback.classic.Level.WARN)
                .extracting(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage)
                .anySatisfy(message -> assertThat(message).contains("10000 ms instead of the requested 60000 ms"));
    }

    @Test
    void anUnreachableEnsembleFailsAtStartWithOneLineNamingTheConnectString() {
        String nowhere = "127.0.0.1:" + LoopbackPorts.free();
        assertThatThrownBy(() -> ZooKeeperLeaseManager.start(ZooKeeperLeaseConfig.builder(nowhere)
                .connectionTimeout(Duration.ofSeconds(1)).build()))
                .isInstanceOf(LeaseManagerException.class)
                .hasMessageContaining(nowhere)
                .hasMessageContaining("leasebox.zookeeper.connect-string")
                .hasMessageNotContaining("\n");
    }
}
