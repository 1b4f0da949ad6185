package dev.leasebox.spring;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;

/** The {@code leasebox.console.*} properties: the operator's page, mounted when leasebox-console is on the class path. */
@ConfigurationProperties(prefix = "leasebox.console")
public class LeaseboxConsoleProperties {

    /** Mount the console (a servlet application with leasebox-console on the class path); false leaves it out. */
    private boolean enabled = true;

    /** Where the page is served, under the application's context path. */
    private String path = "/leasebox";

    /** How often the console reads the outbox table; the page refreshes as often. */
    private Duration sampleEvery = Duration.ofSeconds(2);

    /** Samples kept in memory for the charts. */
    private int keep = 900;

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getPath() {
        return path;
    }

    public void setPath(String path) {
        this.path = path;
    }

    public Duration getSampleEvery() {
        return sampleEvery;
    }

    public void setSampleEvery(Duration sampleEvery) {
        this.sampleEvery = sampleEvery;
    }

    public int getKeep() {
        return keep;
    }

    public void setKeep(int keep) {
        this.keep = keep;
    }
}
