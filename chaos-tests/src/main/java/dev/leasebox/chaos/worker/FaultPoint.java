package dev.leasebox.chaos.worker;

import org.jboss.byteman.rule.Rule;
import org.jboss.byteman.rule.helper.Helper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;

/**
 * The Byteman helper that the harness's fault rules call ({@code HELPER dev.leasebox.chaos.worker.FaultPoint}):
 * {@code hold("POINT", detail)} and {@code fail("POINT", detail)} act as {@link FaultPoints} says, in the directory
 * named by {@value FaultPoints#DIRECTORY_PROPERTY}. Without that property every point passes through.
 */
public class FaultPoint extends Helper {

    private static final Logger LOG = LoggerFactory.getLogger(FaultPoint.class);

    public FaultPoint(Rule rule) {
        super(rule);
    }

    /** Holds the calling thread here if the harness armed {@code point} (once per arming). */
    public void hold(String point, Object detail) {
        Path dir = directory();
        if (dir != null && FaultPoints.hold(dir, point, String.valueOf(detail))) {
            LOG.warn("chaos fault point {}: held, then released by the harness ({})", point, detail);
        }
    }

    /** Whether the calling thread must fail here: the harness armed {@code point} (once per arming). */
    public boolean fail(String point, Object detail) {
        Path dir = directory();
        boolean fail = dir != null && FaultPoints.fail(dir, point, String.valueOf(detail));
        if (fail) {
            LOG.warn("chaos fault point {}: failing this call ({})", point, detail);
        }
        return fail;
    }

    private static Path directory() {
        String dir = System.getProperty(FaultPoints.DIRECTORY_PROPERTY);
        return dir == null || dir.isBlank() ? null : Path.of(dir);
    }
}
