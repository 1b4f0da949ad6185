package dev.leasebox.lease.hazelcast;

import com.hazelcast.instance.BuildInfo;
import com.hazelcast.instance.BuildInfoProvider;
import dev.leasebox.lease.spi.ClientVersionException;

/**
 * Refuses a Hazelcast jar without the CP Subsystem, in one line that says which version to pin. From 5.5 the
 * community edition's CP Subsystem is Enterprise-only: its members refuse {@code cp-member-count} above 0 and its
 * client refuses {@code getCPSubsystem()} ("CP subsystem is a licensed feature"), even against 5.4 members whose
 * CP Subsystem runs. Spring Boot manages community 5.5.0 (Boot 3.5, 4.0 and 4.1), so an application on Boot's
 * dependency management would otherwise fail at the first lock with Hazelcast's own exception.
 */
final class HazelcastVersion {

    /** The Hazelcast lease-hazelcast is built and tested with: the last community release with a CP Subsystem line. */
    static final String BUILT_WITH = "5.4.0";

    private HazelcastVersion() {
    }

    /** @throws ClientVersionException when the class path's Hazelcast is a community edition of 5.5 or later */
    static void requireCpSubsystem() {
        BuildInfo build = BuildInfoProvider.getBuildInfo();
        requireCpSubsystem(build.getVersion(), build.isEnterprise());
    }

    static void requireCpSubsystem(String version, boolean enterprise) {
        if (enterprise || !fromFiveFive(version)) {
            return;
        }
        throw new ClientVersionException("lease-hazelcast needs the CP Subsystem (FencedLock), which Hazelcast's community "
                + "edition has up to 5.4 (built with com.hazelcast:hazelcast " + BUILT_WITH + "), but the class path has "
                + "community Hazelcast " + version + ", where it is Enterprise-only: pin hazelcast " + BUILT_WITH
                + " (Spring Boot's dependency management picks Hazelcast: set the property hazelcast.version=" + BUILT_WITH
                + " in your Maven <properties> or Gradle ext), or use Hazelcast Enterprise with a licence",
                "com.hazelcast:hazelcast", version, "hazelcast.version", BUILT_WITH);
    }

    /** Whether {@code version} (major.minor[.patch][-suffix]) is 5.5 or later; an unreadable version counts as not. */
    static boolean fromFiveFive(String version) {
        String[] parts = version.split("[.-]");
        try {
            int major = Integer.parseInt(parts[0]);
            int minor = parts.length > 1 ? Integer.parseInt(parts[1]) : 0;
            return major > 5 || major == 5 && minor >= 5;
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
