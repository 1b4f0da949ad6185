package dev.leasebox.lease.redis;

import dev.leasebox.lease.LeaseManagerException;
import dev.leasebox.lease.LeaseRequest;
import dev.leasebox.testkit.ManagedProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A TLS-only redis-server with a self-signed certificate for 127.0.0.1: {@code rediss://} with a
 * trust store holding it leases; without it the certificate is refused at start, in one line.
 */
class RedisTlsIT {

    private static Path trustStore;
    private static RedisTestServer redis;

    @BeforeAll
    static void startTlsRedis() throws Exception {
        Path dir = ManagedProcess.tempDir("redis-tls").toPath();
        Path certificate = dir.resolve("redis.crt");
        Path key = dir.resolve("redis.key");
        trustStore = dir.resolve("trust.p12");
        run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key.toString(), "-out", certificate.toString());
        run(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(), "-importcert", "-noprompt",
                "-alias", "redis", "-file", certificate.toString(), "-keystore", trustStore.toString(),
                "-storetype", "PKCS12", "-storepass", "changeit");
        redis = RedisTestServer.startLocalTls(certificate, key);
    }

    @AfterAll
    static void stop() throws Exception {
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void rediss_withTheServersCertificateTrusted_leases() {
        RedisLeaseConfig config = RedisLeaseConfig.builder().uri(redis.uri()).namespace("tls-it")
                .tlsTrustStore(trustStore, "changeit").build();

        try (RedisLeaseManager manager = RedisLeaseManager.start(config)) {
            assertThat(manager.describe()).contains("rediss://127.0.0.1:" + redis.port());
            assertThat(manager.acquire(new LeaseRequest(List.of("a"), "w1", Duration.ofSeconds(10)))).hasSize(1);
        }
    }

    @Test
    void rediss_withAnUntrustedCertificate_failsAtStartInOneLineNamingTheAddress() {
        RedisLeaseConfig config = RedisLeaseConfig.builder().uri(redis.uri()).namespace("tls-it").build();

        assertThatThrownBy(() -> RedisLeaseManager.start(config))
                .isInstanceOf(LeaseManagerException.class)
                .hasMessageStartingWith("Redis at rediss://127.0.0.1:" + redis.port() + "/0")
                .hasMessageContaining("presented a TLS certificate this client does not trust")
                .hasMessageContaining("tls-truststore")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    private static void run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
        }
    }
}
