package dev.leasebox.testkit;

import org.junit.jupiter.api.Test;

import java.util.Base64;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

class KafkaBrokerTest {

    @Test
    void clusterIdsAreSixteenBytesAndNeverLookLikeAnOptionToTheStorageTool() {
        IntStream.range(0, 10_000).mapToObj(i -> KafkaBroker.clusterId()).forEach(id -> {
            assertThat(id).doesNotStartWith("-");
            assertThat(Base64.getUrlDecoder().decode(id)).hasSize(16);
        });
    }
}
