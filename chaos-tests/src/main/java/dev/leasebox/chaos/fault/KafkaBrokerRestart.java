package dev.leasebox.chaos.fault;

import dev.leasebox.chaos.harness.ChaosCluster;
import dev.leasebox.chaos.harness.KafkaDownstream;
import dev.leasebox.chaos.harness.WorkerProcess;

import java.time.Duration;

/**
 * The Kafka broker the workers send to killed (SIGKILL) while they hold claims and send, and started again
 * after longer than a send's delivery timeout (10 s): sends in flight time out and are retried, an append
 * whose acknowledgement was lost is sent again. Every entry must still reach the topic or be dead-lettered,
 * and no superseded fence may reach it.
 */
public final class KafkaBrokerRestart implements FaultInjector {

    /** Longer than the kafka provider's 10 s delivery timeout, so that sends fail rather than wait it out. */
    static final Duration DOWNTIME = Duration.ofSeconds(11);

    @Override
    public void inject(ChaosCluster cluster, Duration window) {
        KafkaDownstream kafka = cluster.kafka().orElseThrow(() -> new IllegalStateException(
                "kafka-broker-restart needs the run's Kafka broker (Scenario.kafka)"));
        WorkerProcess victim = cluster.victim();
        if (!FaultInjector.awaitHolding(victim, window)) {
            return;
        }
        kafka.restart(cluster.faults(), DOWNTIME);
    }
}
