package dev.leasebox.cli;

import dev.leasebox.Leasebox;
import dev.leasebox.console.Console;
import dev.leasebox.kafka.KafkaProvider;
import dev.leasebox.lease.LeaseManager;
import dev.leasebox.lease.hazelcast.HazelcastLeaseManager;
import dev.leasebox.lease.redis.RedisLeaseManager;
import dev.leasebox.lease.zookeeper.ZooKeeperLeaseManager;
import dev.leasebox.rabbitmq.RabbitMqProvider;
import org.junit.jupiter.api.Test;

import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every library jar has a stable module name, so a modular application can require it: the API jar by its
 * module-info, the others by their Automatic-Module-Name (decision 0044). Runs after packaging, on the jars.
 */
class LibraryModuleNamesIT {

    @Test
    void everyLibraryJarHasItsModuleName() throws Exception {
        Map<Class<?>, String> expected = new LinkedHashMap<>();
        expected.put(LeaseManager.class, "dev.leasebox.api");
        expected.put(Leasebox.class, "dev.leasebox");
        expected.put(RedisLeaseManager.class, "dev.leasebox.lease.redis");
        expected.put(ZooKeeperLeaseManager.class, "dev.leasebox.lease.zookeeper");
        expected.put(HazelcastLeaseManager.class, "dev.leasebox.lease.hazelcast");
        expected.put(KafkaProvider.class, "dev.leasebox.kafka");
        expected.put(RabbitMqProvider.class, "dev.leasebox.rabbitmq");
        expected.put(Console.class, "dev.leasebox.console");
        Map<String, String> actual = new LinkedHashMap<>();
        for (Class<?> type : expected.keySet()) {
            Path jar = Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
            assertThat(jar.toString()).as("%s comes from a packaged jar", type.getSimpleName()).endsWith(".jar");
            ModuleReference module = ModuleFinder.of(jar).findAll().iterator().next();
            actual.put(type.getSimpleName(), module.descriptor().name());
        }
        Map<String, String> wanted = new LinkedHashMap<>();
        expected.forEach((type, name) -> wanted.put(type.getSimpleName(), name));
        assertThat(actual).isEqualTo(wanted);
    }
}
