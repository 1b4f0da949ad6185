package dev.leasebox.lease.zookeeper;

import org.apache.zookeeper.common.PathUtils;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

class LeaseNodeFormatTest {

    @Test
    void nodeDataRoundTripsAnOwnerContainingTheSeparator() {
        LeaseNodeData data = new LeaseNodeData("worker|1", Instant.ofEpochMilli(1_700_000_000_123L), Duration.ofSeconds(30),
                LeasePaths.newToken());
        assertThat(LeaseNodeData.decode(data.encode())).contains(data);
    }

    @Test
    void foreignNodeDataIsNotDecodedSoItIsNeverTakenOver() {
        assertThat(LeaseNodeData.decode("hello".getBytes(StandardCharsets.UTF_8))).isEmpty();
        assertThat(LeaseNodeData.decode("1|x|y|z".getBytes(StandardCharsets.UTF_8))).isEmpty();
        assertThat(LeaseNodeData.decode("1|1700000000123|30000|owner".getBytes(StandardCharsets.UTF_8)))
                .as("format 1 had no incarnation token").isEmpty();
        assertThat(LeaseNodeData.decode("2|1700000000123|30000|not-a-token|owner".getBytes(StandardCharsets.UTF_8))).isEmpty();
        assertThat(LeaseNodeData.decode(null)).isEmpty();
    }

    @Test
    void incarnationTokensAreFreshAndNameOneNodeEach() {
        List<String> tokens = java.util.stream.IntStream.range(0, 1000).mapToObj(i -> LeasePaths.newToken()).toList();
        assertThat(tokens).doesNotHaveDuplicates().allSatisfy(token -> assertThat(LeasePaths.isToken(token)).isTrue());
        LeasePaths paths = new LeasePaths("ns");
        tokens.stream().map(paths::incarnation).forEach(PathUtils::validatePath);
        assertThat(paths.incarnation(tokens.get(0))).isEqualTo("/ns/incarnations/" + tokens.get(0));
    }

    @Test
    void aNodeIsExpiredForATakerOnlyPastItsDeadlinePlusTheMaximumSkew() {
        Instant deadline = Instant.ofEpochMilli(1_700_000_000_000L);
        LeaseNodeData data = new LeaseNodeData("owner", deadline, Duration.ofSeconds(30), LeasePaths.newToken());
        Duration skew = Duration.ofSeconds(1);
        assertThat(data.expiredFor(deadline.plusMillis(1), skew)).isFalse();
        assertThat(data.expiredFor(deadline.plus(skew), skew)).isFalse();
        assertThat(data.expiredFor(deadline.plus(skew).plusMillis(1), skew)).isTrue();
        assertThat(data.expiredFor(deadline.plusMillis(1), Duration.ZERO)).isTrue();
    }

    @Test
    void everyKeyMapsToOneValidDistinctZnode() {
        LeasePaths paths = new LeasePaths("ns");
        List<String> keys = List.of("a/b", "a%2Fb", ".", "..", "ü", "outbox:42", "a b", "a+b");
        List<String> znodes = keys.stream().map(paths::of).collect(Collectors.toList());
        znodes.forEach(PathUtils::validatePath);
        assertThat(znodes).doesNotHaveDuplicates().allSatisfy(p -> assertThat(p).startsWith("/ns/leases/"));
        assertThat(znodes).allSatisfy(p -> assertThat(p.substring("/ns/leases/".length())).doesNotContain("/"));
    }
}
