package dev.leasebox.lease.redis;

import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/** The Docker step of the fixture: a throwaway Redis container without persistence. */
final class RedisContainer {

    private RedisContainer() {
    }

    static RedisTestServer start() {
        GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse("redis:7.2"))
                .withExposedPorts(6379)
                .withCommand("redis-server", "--save", "", "--appendonly", "no");
        container.start();
        int port = container.getMappedPort(6379);
        return RedisTestServer.ofContainer("redis://" + container.getHost() + ":" + port, port, container::stop);
    }
}
