package dev.leasebox.lease;

import dev.leasebox.lease.spi.LeaseBackend;
import org.junit.jupiter.api.Test;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** The API module's descriptor: its name, what it exports, and that backends are found by name through it. */
class ModuleDescriptorTest {

    private static ModuleDescriptor descriptor() throws URISyntaxException {
        Path classes = Path.of(LeaseManager.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        return ModuleFinder.of(classes).findAll().iterator().next().descriptor();
    }

    @Test
    void theApiIsTheNamedModuleDevLeaseboxApi() throws Exception {
        assertThat(descriptor().name()).isEqualTo("dev.leasebox.api");
        assertThat(descriptor().isAutomatic()).isFalse();
    }

    @Test
    void everyPackageOfTheApiIsExportedAndNothingElse() throws Exception {
        ModuleDescriptor descriptor = descriptor();
        Set<String> exported = descriptor.exports().stream()
                .filter(e -> !e.isQualified()).map(ModuleDescriptor.Exports::source).collect(Collectors.toSet());
        assertThat(exported).containsExactlyInAnyOrder("dev.leasebox.lease", "dev.leasebox.lease.spi", "dev.leasebox.outbox");
        assertThat(descriptor.packages()).isEqualTo(exported);
    }

    @Test
    void backendsAreFoundThroughTheServiceLoader() throws Exception {
        assertThat(descriptor().uses()).containsExactly(LeaseBackend.class.getName());
    }
}
