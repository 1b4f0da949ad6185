package dev.leasebox.lease.zookeeper;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseRequest;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A manager frozen between reading a lease node and writing it (a latch in its write path, so the
 * interleaving is exact) while another manager takes the key over and renews it 0, 1, 2 or 5 times:
 * the frozen write must fail, whatever the new node's version has become. Real ZooKeeper server.
 */
class FrozenWriterIT {

    private static final Duration SHORT_TTL = Duration.ofSeconds(2);
    private static final Duration LONG_TTL = Duration.ofSeconds(60);
    private static final Duration WAIT = Duration.ofSeconds(30);

    @RegisterExtension
    static final ZooKeeperServerExtension zk = new ZooKeeperServerExtension();
    private final ExecutorService frozenThread = Executors.newSingleThreadExecutor();
    private final CountDownLatch paused = new CountDownLatch(1);
    private final CountDownLatch resume = new CountDownLatch(1);

    @AfterEach
    void closeClients() {
        resume.countDown();
        frozenThread.shutdownNow(); // the extension closes the managers and clients after this
    }

    private ZooKeeperLeaseManager manager(String namespace) {
        return zk.manager(zk.config(namespace));
    }

    private CuratorFramework plainClient() {
        return zk.plainClient();
    }

    /** Blocks the calling thread until the test resumes it. */
    private void freeze() {
        paused.countDown();
        try {
            if (!resume.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                throw new IllegalStateException("never resumed");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private <T> CompletableFuture<T> onFrozenThread(Supplier<T> call) {
        return CompletableFuture.supplyAsync(call, frozenThread);
    }

    private static long session(ZooKeeperLeaseManager manager) throws Exception {
        return manager.curator().getZookeeperClient().getZooKeeper().getSessionId();
    }

    private static Lease takeOverOnceExpired(ZooKeeperLeaseManager manager, String key, String owner) {
        return await("the key to be taken over once its deadline passed").atMost(WAIT).pollInterval(Duration.ofMillis(100))
                .until(() -> manager.acquire(new LeaseRequest(List.of(key), owner, LONG_TTL)), granted -> !granted.isEmpty())
                .get(0);
    }

    private static Lease renewTimes(ZooKeeperLeaseManager manager, Lease lease, int times) {
        for (int i = 0; i < times; i++) {
            List<Lease> renewed = manager.renew(List.of(lease));
            assertThat(renewed).as("renewal %d of %s", i + 1, lease.owner()).hasSize(1);
            lease = renewed.get(0);
        }
        return lease;
    }

    /**
     * The frozen taker read the expired node (at the version the first holder's renewals left it) and
     * stops before its takeover write. The winner takes the key over and renews its new node as many
     * times, so a check by version alone would match. Then the frozen taker's write goes out.
     */
    @ParameterizedTest(name = "the winner renewed its node {0} times before the frozen takeover was sent")
    @ValueSource(ints = {0, 1, 2, 5})
    void aFrozenTakerNeverDeletesTheNodeOfALaterHolder(int renewals) throws Exception {
        String namespace = "frozen-taker-" + renewals;
        String path = "/" + namespace + "/leases/row-1";
        ZooKeeperLeaseManager holder = manager(namespace);
        ZooKeeperLeaseManager frozen = manager(namespace);
        ZooKeeperLeaseManager winner = manager(namespace);
        renewTimes(holder, holder.acquire(new LeaseRequest(List.of("row-1"), "holder", SHORT_TTL)).get(0), renewals);

        frozen.pauseWrites(new WritePause() {
            @Override
            public void beforeTakeover() {
                freeze();
            }
        });
        CompletableFuture<List<Lease>> frozenTakeover = onFrozenThread(() -> await("the frozen taker to read the node as expired")
                .atMost(WAIT).pollInterval(Duration.ofMillis(100))
                .until(() -> frozen.acquire(new LeaseRequest(List.of("row-1"), "frozen", LONG_TTL)),
                        granted -> !granted.isEmpty() || paused.getCount() == 0));
        assertThat(paused.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the frozen taker reached its takeover").isTrue();

        Lease won = renewTimes(winner, takeOverOnceExpired(winner, "row-1", "winner"), renewals);
        CuratorFramework observer = plainClient();
        Stat before = observer.checkExists().forPath(path);

        resume.countDown();
        List<Lease> frozenGot = frozenTakeover.get(WAIT.toSeconds(), TimeUnit.SECONDS);

        Stat after = observer.checkExists().forPath(path);
        assertThat(after).as("the winner's node, after the frozen takeover").isNotNull();
        assertThat(after.getCzxid()).as("the winner's node (czxid of its fence) still stands")
                .isEqualTo(Fences.czxidOf(won.fence())).isEqualTo(before.getCzxid());
        assertThat(after.getEphemeralOwner()).as("owned by the winner's session").isEqualTo(session(winner));
        assertThat(after.getMzxid()).as("and was not written by the frozen taker").isEqualTo(before.getMzxid());
        assertThat(frozenGot).as("what the frozen taker was granted (its takeover was sent after %d renewals)", renewals).isEmpty();
        assertThat(frozen.heldCount()).isZero();
        assertThat(winner.renew(List.of(won))).as("the winner still holds the key").hasSize(1);
    }

    /**
     * The first holder's renewal passes its local deadline check, then stops before it is sent (a
     * request held in transit). The node expires, the winner takes the key over and renews its new
     * node as many times as the first holder had renewed its own, so the held renewal's version
     * matches. Then the renewal goes out: it must not write the winner's node.
     */
    @ParameterizedTest(name = "the holder renewed {0} times, and so did the winner before the held renewal was sent")
    @ValueSource(ints = {1, 2, 5})
    void aHeldRenewalNeverWritesToANodeItsManagerDidNotCreate(int renewals) throws Exception {
        String namespace = "frozen-renewal-" + renewals;
        String path = "/" + namespace + "/leases/row-1";
        ZooKeeperLeaseManager holder = manager(namespace);
        ZooKeeperLeaseManager winner = manager(namespace);
        Lease held = renewTimes(holder, holder.acquire(new LeaseRequest(List.of("row-1"), "holder", SHORT_TTL)).get(0), renewals);

        holder.pauseWrites(new WritePause() {
            @Override
            public void beforeRenewal() {
                freeze();
            }
        });
        CompletableFuture<List<Lease>> heldRenewal = onFrozenThread(() -> holder.renew(List.of(held)));
        assertThat(paused.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the holder's renewal passed its deadline check").isTrue();

        Lease won = renewTimes(winner, takeOverOnceExpired(winner, "row-1", "winner"), renewals);
        CuratorFramework observer = plainClient();
        Stat before = new Stat();
        byte[] dataBefore = observer.getData().storingStatIn(before).forPath(path);

        resume.countDown();
        List<Lease> renewed = heldRenewal.get(WAIT.toSeconds(), TimeUnit.SECONDS);

        Stat after = new Stat();
        byte[] dataAfter = observer.getData().storingStatIn(after).forPath(path);
        assertThat(new String(dataAfter, java.nio.charset.StandardCharsets.UTF_8)).as("the winner's node data after the held renewal")
                .isEqualTo(new String(dataBefore, java.nio.charset.StandardCharsets.UTF_8));
        assertThat(after.getVersion()).as("the winner's node version").isEqualTo(before.getVersion());
        assertThat(after.getCzxid()).isEqualTo(Fences.czxidOf(won.fence()));
        assertThat(renewed).as("what the held renewal renewed").isEmpty();
        assertThat(holder.heldCount()).isZero();
        assertThat(winner.renew(List.of(won))).as("the winner still holds the key").hasSize(1);
    }
}
