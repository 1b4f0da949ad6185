package dev.leasebox;

import dev.leasebox.provider.ProviderFactory;
import org.junit.jupiter.api.Test;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** The library's descriptor exports what users set and call, and keeps the strategies and JDBC internals in. */
class ModuleDescriptorTest {

    private static ModuleDescriptor descriptor() throws Exception {
        Path classes = Path.of(Leasebox.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        return ModuleFinder.of(classes).findAll().iterator().next().descriptor();
    }

    @Test
    void theLibraryIsTheNamedModuleDevLeasebox() throws Exception {
        assertThat(descriptor().name()).isEqualTo("dev.leasebox");
        assertThat(descriptor().isAutomatic()).isFalse();
    }

    @Test
    void onlyTheApiPackagesAreExported() throws Exception {
        ModuleDescriptor descriptor = descriptor();
        Set<String> exported = descriptor.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet());
        assertThat(exported).containsExactlyInAnyOrder("dev.leasebox", "dev.leasebox.claim", "dev.leasebox.drain",
                "dev.leasebox.jdbc", "dev.leasebox.metrics", "dev.leasebox.provider", "dev.leasebox.wakeup", "dev.leasebox.testing");
        assertThat(descriptor.packages()).contains("dev.leasebox.claim.leased", "dev.leasebox.claim.partition",
                "dev.leasebox.claim.grouped", "dev.leasebox.jdbc.dialect", "dev.leasebox.jdbc.store", "dev.leasebox.jdbc.lease");
        assertThat(exported).doesNotContain("dev.leasebox.claim.leased", "dev.leasebox.jdbc.store");
    }

    @Test
    void theBuiltInProvidersAreFoundOnTheModulePathToo() throws Exception {
        ModuleDescriptor descriptor = descriptor();
        assertThat(descriptor.uses()).contains(ProviderFactory.class.getName());
        assertThat(descriptor.provides()).singleElement()
                .satisfies(p -> assertThat(p.providers()).hasSize(4).allMatch(name -> name.startsWith("dev.leasebox.provider.BuiltInProviders$")));
    }
}
