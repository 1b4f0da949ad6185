package dev.leasebox.lease.hazelcast;

import com.hazelcast.instance.BuildInfoProvider;
import dev.leasebox.lease.spi.ClientVersionException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HazelcastVersionTest {

    @Test
    void theHazelcastWeBuildWithIsAccepted() {
        assertThat(BuildInfoProvider.getBuildInfo().getVersion()).isEqualTo(HazelcastVersion.BUILT_WITH);
        assertThatCode(HazelcastVersion::requireCpSubsystem).doesNotThrowAnyException();
    }

    @Test
    void communityReleasesWithACpSubsystemAndEnterpriseReleasesAreAccepted() {
        assertThatCode(() -> HazelcastVersion.requireCpSubsystem("5.3.8", false)).doesNotThrowAnyException();
        assertThatCode(() -> HazelcastVersion.requireCpSubsystem("5.4.0", false)).doesNotThrowAnyException();
        assertThatCode(() -> HazelcastVersion.requireCpSubsystem("5.5.0", true)).doesNotThrowAnyException();
        assertThatCode(() -> HazelcastVersion.requireCpSubsystem("5.7.0", true)).doesNotThrowAnyException();
    }

    @Test
    void communityFiveFiveAndLaterAreRefusedNamingThePin() {
        for (String version : new String[]{"5.5.0", "5.6.1", "5.10.0", "6.0.0-BETA-1"}) {
            assertThatThrownBy(() -> HazelcastVersion.requireCpSubsystem(version, false))
                    .isInstanceOfSatisfying(ClientVersionException.class, e -> {
                        assertThat(e.found()).isEqualTo(version);
                        assertThat(e.pinProperty()).isEqualTo("hazelcast.version");
                        assertThat(e.pinVersion()).isEqualTo(HazelcastVersion.BUILT_WITH);
                    })
                    .hasMessageContaining("community Hazelcast " + version + ", where it is Enterprise-only")
                    .hasMessageContaining("hazelcast.version=" + HazelcastVersion.BUILT_WITH)
                    .hasMessageNotContaining("\n");
        }
    }
}
