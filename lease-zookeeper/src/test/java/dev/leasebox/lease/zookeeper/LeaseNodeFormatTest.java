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
        LeaseNodeData data = new LeaseNodeData("worker|1", Instant.ofEpochMilli(1_700_000_000_123L), Duration.ofSeconds(30));
        assertThat(LeaseNodeData.decode(data.encode())).contains(data);
    }

    @Test
    void foreignNodeDataIsNotDecodedSoItIsNeverTakenOver() {
        assertThat(LeaseNodeData.decode("hello".getBytes(StandardCharsets.UTF_8))).isEmpty();
        assertThat(LeaseNodeData.decode("1|x|y|z".getBytes(StandardCharsets.UTF_8))).isEmpty();
        assertThat(LeaseNodeData.decode(null)).isEmpty();
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
