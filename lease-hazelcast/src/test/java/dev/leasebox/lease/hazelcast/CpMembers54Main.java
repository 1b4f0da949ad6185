package dev.leasebox.lease.hazelcast;

import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;

import java.util.ArrayList;
import java.util.List;

/**
 * Three CP members in their own JVM, on a class path of only Hazelcast (the community 5.4 jar) and this class,
 * for {@link CommunityHazelcastRefusedIT}, whose own JVM has another Hazelcast. Arguments: {@code clusterName
 * port,port,port}. Prints {@code CP READY} once the CP Subsystem grants a lock; runs until killed.
 */
public final class CpMembers54Main {

    private CpMembers54Main() {
    }

    public static void main(String[] args) throws Exception {
        String clusterName = args[0];
        String[] ports = args[1].split(",");
        List<Thread> starters = new ArrayList<>();
        List<HazelcastInstance> members = java.util.Collections.synchronizedList(new ArrayList<>());
        for (String port : ports) {
            Config config = new Config().setClusterName(clusterName);
            config.getNetworkConfig().setPort(Integer.parseInt(port)).setPortAutoIncrement(false);
            config.getNetworkConfig().getInterfaces().setEnabled(true).addInterface("127.0.0.1");
            config.getNetworkConfig().getJoin().getMulticastConfig().setEnabled(false);
            config.getNetworkConfig().getJoin().getAutoDetectionConfig().setEnabled(false);
            for (String member : ports) {
                config.getNetworkConfig().getJoin().getTcpIpConfig().setEnabled(true).addMember("127.0.0.1:" + member);
            }
            config.getCPSubsystemConfig().setCPMemberCount(ports.length);
            Thread starter = new Thread(() -> members.add(Hazelcast.newHazelcastInstance(config)));
            starters.add(starter);
            starter.start();
        }
        for (Thread starter : starters) {
            starter.join();
        }
        var lock = members.get(0).getCPSubsystem().getLock("cp-ready-probe");
        long fence = lock.lockAndGetFence();
        lock.unlock();
        System.out.println("CP READY fence " + fence);
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
