package dev.leasebox.chaos.scenario;

import dev.leasebox.chaos.harness.Granularity;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Which cases the chaos suite runs. {@link #ci} is what {@code leasebox chaos --suite} and {@code ChaosSuiteIT}
 * (so {@code mvn verify}) run: every scenario on at least one backend, each fault on the backends where it
 * reaches different code, sized to stay within the CI bound (docs/chaos.md, <i>Bounds</i>). {@link #full} is
 * {@code leasebox chaos --suite --full}: every scenario on every backend it applies to, and every claim variant; the
 * connection faults ({@link #EVERY_CLAIM_STYLE}) in every claim style ({@link #CLAIM_STYLES}) instead of the default.
 * A case is {@code BACKEND/SCENARIO} or {@code BACKEND/SCENARIO@VARIANT}, the variant {@code lean-rows}
 * ({@code --claim-mode lean}), {@code lean-partition} ({@code --granularity partition --claim-mode
 * lean}, unordered), {@code partition} (the same, {@code --claim-mode recorded}), {@code per-row} and
 * {@code per-row-lean} (a lease per row, {@code --backend-option row-groups=0}, claims recorded or lean),
 * {@code grouped} and {@code grouped-lean} (rows grouped, {@code row-groups=4096}), {@code non-terminal}
 * ({@code --release-after-completion non-terminal}, Redis only) or {@code release-in-background}
 * ({@code --release-in-background}).
 */
public final class Suite {

    /** The CI cases. */
    static final List<String> CI = List.of(
            "database/worker-kill", "database/worker-pause", "database/provider-faults", "database/clock-step",
            "database/db-connections-kill", "database/db-restart", "database/kafka-broker-restart",
            "database/row-to-partition",
            "redis/worker-kill", "redis/worker-pause", "redis/coordinator-restart", "redis/partition",
            "redis/clock-step", "redis/coordinator-failover", "redis/db-connections-kill",
            "redis/mixed-fleet",
            "zookeeper/worker-kill", "zookeeper/worker-pause", "zookeeper/coordinator-restart", "zookeeper/partition",
            "zookeeper/clock-step",
            "hazelcast/worker-kill", "hazelcast/worker-pause", "hazelcast/coordinator-restart", "hazelcast/partition",
            "hazelcast/short-partition", "hazelcast/failed-unlock",
            "redis/worker-pause@lean-rows", "redis/coordinator-restart@lean-rows", "database/clock-step@lean-partition",
            "redis/worker-pause@non-terminal", "zookeeper/worker-kill@release-in-background",
            "zookeeper/connection-blip@lean-partition", "zookeeper/connection-blip@grouped",
            "redis/renewal-cut@per-row-lean");

    /** Scenarios the full suite runs on every external backend in every claim style of {@link #CLAIM_STYLES}. */
    static final List<String> EVERY_CLAIM_STYLE = List.of(Scenario.CONNECTION_BLIP, Scenario.RENEWAL_CUT);

    /** Row leases one per row or grouped, partition leases, each with recorded and lean claims. */
    static final List<String> CLAIM_STYLES = List.of("per-row", "per-row-lean", "grouped", "grouped-lean", "partition",
            "lean-partition");

    /** Claim variants beyond every scenario with recorded row claims, in the full suite. */
    static final List<String> VARIANTS = List.of(
            "redis/worker-pause@lean-rows", "zookeeper/worker-pause@lean-rows", "redis/coordinator-restart@lean-rows",
            "redis/coordinator-failover@lean-rows", "database/clock-step@lean-partition",
            "redis/worker-pause@non-terminal", "redis/worker-kill@non-terminal", "redis/coordinator-restart@non-terminal",
            "redis/partition@non-terminal", "redis/worker-pause@lean-rows-non-terminal",
            "zookeeper/worker-kill@release-in-background", "zookeeper/worker-pause@release-in-background",
            "redis/worker-pause@release-in-background", "hazelcast/worker-kill@release-in-background",
            "zookeeper/partition@release-in-background", "zookeeper/frozen-taker@lean-rows");

    private Suite() {
    }

    /** One case: a scenario on a backend, with row claims recorded unless a variant says otherwise. */
    public record Case(String backend, String scenario, String variant) {

        static Case parse(String name) {
            String backend = name.substring(0, name.indexOf('/'));
            String rest = name.substring(name.indexOf('/') + 1);
            int at = rest.indexOf('@');
            return new Case(backend, at < 0 ? rest : rest.substring(0, at), at < 0 ? "" : rest.substring(at + 1));
        }

        /** {@code SCENARIO} or {@code SCENARIO@VARIANT}. */
        public String caseName() {
            return variant.isEmpty() ? scenario : scenario + "@" + variant;
        }

        public Granularity granularity(Granularity withoutVariant) {
            return switch (variant) {
                case "" -> withoutVariant;
                case "lean-rows" -> Granularity.LEAN_ROWS;
                case "lean-partition" -> Granularity.partition(false, "lean");
                case "partition" -> Granularity.partition(false, "recorded");
                case "per-row" -> Granularity.ROW.withRowGrouping(Granularity.PER_ROW);
                case "per-row-lean" -> Granularity.LEAN_ROWS.withRowGrouping(Granularity.PER_ROW);
                case "grouped" -> Granularity.ROW.withRowGrouping(Granularity.GROUPED);
                case "grouped-lean" -> Granularity.LEAN_ROWS.withRowGrouping(Granularity.GROUPED);
                case "non-terminal" -> Granularity.ROW.withRelease("non-terminal", false);
                case "lean-rows-non-terminal" -> Granularity.LEAN_ROWS.withRelease("non-terminal", false);
                case "release-in-background" -> Granularity.ROW.withRelease("always", true);
                default -> throw new IllegalArgumentException("unknown variant " + variant);
            };
        }
    }

    /** The CI cases on the backends available here. */
    public static List<Case> ci(List<String> available) {
        return CI.stream().map(Case::parse).filter(c -> available.contains(c.backend())).toList();
    }

    /** Every scenario on every available backend it applies to, then the variants. */
    public static List<Case> full(List<String> available) {
        Set<Case> cases = new LinkedHashSet<>();
        for (String backend : available) {
            for (Scenario s : Scenario.ALL) {
                if (!s.unavailableReason(backend).isEmpty()) {
                    continue;
                }
                if (EVERY_CLAIM_STYLE.contains(s.name())) {
                    CLAIM_STYLES.forEach(style -> cases.add(new Case(backend, s.name(), style)));
                } else {
                    cases.add(new Case(backend, s.name(), ""));
                }
            }
        }
        VARIANTS.stream().map(Case::parse).filter(c -> available.contains(c.backend())).forEach(cases::add);
        return new ArrayList<>(cases);
    }
}
