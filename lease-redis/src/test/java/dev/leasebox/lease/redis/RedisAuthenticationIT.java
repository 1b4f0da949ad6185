package dev.leasebox.lease.redis;

import dev.leasebox.lease.Lease;
import dev.leasebox.lease.LeaseManagerException;
import dev.leasebox.lease.LeaseRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Against a Redis with {@code requirepass} and an ACL user allowed only the namespace's keys and
 * the commands the manager sends (the scripts run with the user's own permissions, so the commands
 * inside them count too; this is the minimal ACL the class comment documents): right credentials lease, wrong ones fail at start with one line
 * naming the address and the user, never the password.
 */
class RedisAuthenticationIT {

    private static final String DEFAULT_PASSWORD = "default-secret";
    private static final String ACL_USER = "leasebox";
    private static final String ACL_PASSWORD = "acl-secret";
    private static final String NAMESPACE = "auth-it";

    private static RedisTestServer redis;

    @BeforeAll
    static void startRedisWithAuthentication() {
        redis = RedisTestServer.startLocal("--requirepass", DEFAULT_PASSWORD);
        try (Jedis admin = redis.admin(null, DEFAULT_PASSWORD)) {
            admin.aclSetUser(ACL_USER, "on", ">" + ACL_PASSWORD, "~" + NAMESPACE + ":*",
                    "+ping", "+evalsha", "+eval", "+script|load",
                    "+set", "+get", "+pexpire", "+del");
        }
    }

    @AfterAll
    static void stopRedis() throws Exception {
        if (redis != null) {
            redis.close();
        }
    }

    private static String uri(String userInfo) {
        return "redis://" + userInfo + "@127.0.0.1:" + redis.port();
    }

    private static RedisLeaseManager start(String uri) {
        return RedisLeaseManager.start(RedisLeaseConfig.builder().uri(uri).namespace(NAMESPACE).build());
    }

    @Test
    void theDefaultUsersPasswordAloneIsAccepted() {
        try (RedisLeaseManager manager = start(uri(":" + DEFAULT_PASSWORD))) {
            assertThat(manager.acquire(new LeaseRequest(List.of("k-default"), "w1", Duration.ofSeconds(10)))).hasSize(1);
        }
    }

    @Test
    void anAclUserLimitedToTheNamespaceAndTheScriptingCommandsCanAcquireRenewAndRelease() {
        try (RedisLeaseManager manager = start(uri(ACL_USER + ":" + ACL_PASSWORD))) {
            List<Lease> granted = manager.acquire(new LeaseRequest(List.of("k-acl-1", "k-acl-2"), "w1", Duration.ofSeconds(10)));
            assertThat(granted).hasSize(2);
            assertThat(manager.renew(granted)).hasSize(2);
            assertThat(manager.release(granted)).hasSize(2);
            assertThat(manager.raiseFenceFloor(10)).isTrue();
        }
    }

    @Test
    void credentialsGivenBesideTheUriOverrideIt() {
        RedisLeaseConfig config = RedisLeaseConfig.builder().uri(uri("nobody:nothing"))
                .user(ACL_USER).password(ACL_PASSWORD).namespace(NAMESPACE).build();
        try (RedisLeaseManager manager = RedisLeaseManager.start(config)) {
            assertThat(manager.acquire(new LeaseRequest(List.of("k-override"), "w1", Duration.ofSeconds(10)))).hasSize(1);
        }
    }

    @Test
    void aWrongPasswordFailsAtStartWithOneLineNamingTheAddressAndUserButNotThePassword() {
        assertThatThrownBy(() -> start(uri(ACL_USER + ":not-the-password")))
                .isInstanceOf(LeaseManagerException.class)
                .hasMessageContaining("redis://leasebox@127.0.0.1:" + redis.port())
                .hasMessageContaining("refused authentication for user 'leasebox'")
                .hasMessageContaining("WRONGPASS")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("not-the-password").doesNotContain("\n"));
    }

    @Test
    void noPasswordAgainstRequirepassFailsAtStartSayingAuthenticationIsRequired() {
        assertThatThrownBy(() -> start("redis://127.0.0.1:" + redis.port()))
                .isInstanceOf(LeaseManagerException.class)
                .hasMessageContaining("redis://127.0.0.1:" + redis.port())
                .hasMessageContaining("NOAUTH")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void anAclUserOutsideItsKeyPatternIsRefusedWithTheReason() {
        RedisLeaseConfig otherNamespace = RedisLeaseConfig.builder().uri(uri(ACL_USER + ":" + ACL_PASSWORD))
                .namespace("someone-else").build();
        try (RedisLeaseManager manager = RedisLeaseManager.start(otherNamespace)) {
            assertThatThrownBy(() -> manager.acquire(new LeaseRequest(List.of("k"), "w1", Duration.ofSeconds(10))))
                    .isInstanceOf(LeaseManagerException.class)
                    .hasMessageContaining("redis://leasebox@127.0.0.1:" + redis.port())
                    .hasMessageContaining("NOPERM");
        }
    }
}
