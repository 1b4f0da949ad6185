package dev.leasebox.lease.redis;

import org.junit.jupiter.api.Test;
import redis.clients.jedis.util.JedisClusterCRC16;

import static org.assertj.core.api.Assertions.assertThat;

class RedisKeysTest {

    @Test
    void leaseKeysAndTheFenceCounterArePrefixedByTheNamespace() {
        RedisKeys keys = new RedisKeys("orders");

        assertThat(keys.lease("row-42")).isEqualTo("orders:lease:row-42");
        assertThat(keys.fenceCounter()).isEqualTo("orders:fence");
        assertThat(RedisKeys.holderValue(7, "worker:a")).isEqualTo("7:worker:a");
    }

    @Test
    void aHashTaggedNamespacePutsEveryKeyOfAScriptInOneClusterSlotEvenWhenTheKeyHasBraces() {
        RedisKeys keys = new RedisKeys("{orders}");
        int slot = JedisClusterCRC16.getSlot(keys.fenceCounter());

        assertThat(JedisClusterCRC16.getSlot(keys.lease("row-1"))).isEqualTo(slot);
        assertThat(JedisClusterCRC16.getSlot(keys.lease("{other}-row-2"))).isEqualTo(slot);
        assertThat(JedisClusterCRC16.getSlot("orders")).isEqualTo(slot);
    }

    @Test
    void withoutAHashTagTheKeysOfOneNamespaceSpreadOverSlots() {
        RedisKeys keys = new RedisKeys("orders");

        assertThat(JedisClusterCRC16.getSlot(keys.lease("row-1"))).isNotEqualTo(JedisClusterCRC16.getSlot(keys.fenceCounter()));
    }
}
