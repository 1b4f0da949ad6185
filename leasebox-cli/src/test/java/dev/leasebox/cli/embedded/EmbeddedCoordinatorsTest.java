package dev.leasebox.cli.embedded;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What is refused before any coordinator starts. */
class EmbeddedCoordinatorsTest {

    @Test
    void redisHasNoEmbeddedForm() {
        assertThatThrownBy(() -> EmbeddedCoordinators.start("redis", Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("the redis backend cannot run embedded: choose one of");
    }

    @Test
    void unknownOptionsAreRefusedNamingTheKnownOnesInKebabCase() {
        assertThatThrownBy(() -> EmbeddedCoordinators.start("hazelcast", Map.of("sessionTtl", "5s")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown embedded hazelcast option 'sessionTtl'").hasMessageContaining("session-ttl");
        assertThatThrownBy(() -> EmbeddedCoordinators.start("zookeeper", Map.of("dataDir", "/tmp/x")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown embedded zookeeper option 'dataDir'").hasMessageContaining("data-dir");
    }

    @Test
    void badSessionTimingIsRefusedBeforeAnyMemberStarts() {
        assertThatThrownBy(() -> EmbeddedCoordinators.start("hazelcast", Map.of("session-ttl", "1s", "heartbeat", "1s")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("CP session TTL PT1S and heartbeat PT1S").hasMessageContaining("TTL above it");
        assertThatThrownBy(() -> EmbeddedCoordinators.start("hazelcast", Map.of("session-ttl", "10")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("session-ttl: '10' is not a duration");
        assertThatThrownBy(() -> EmbeddedCoordinators.start("zookeeper", Map.of("port", "70000")))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("port must be a number in 0..65535, was '70000'");
    }
}
