package dev.leasebox.spring;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Run only by the failsafe execution {@code boot-4.0-clients} (see the pom), whose class path has the Jedis (7.0.0)
 * and Hazelcast (community 5.5.0) that Spring Boot 4.0's dependency management picks, in place of the versions
 * lease-redis and lease-hazelcast are built with: an application on Boot 4.0 without the pins. Opening either
 * backend stops the start with Spring Boot's failure report: the module's one line, and the property that pins
 * the version.
 */
@ExtendWith(OutputCaptureExtension.class)
class LeaseboxOlderClientsIT {

    private String table;

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Application {
    }

    @BeforeAll
    static void onlyInItsExecution() {
        assumeTrue("boot-4.0".equals(System.getProperty("leasebox.it.clients")), "runs in the failsafe execution boot-4.0-clients only");
    }

    @AfterEach
    void dropTable() throws Exception {
        if (table != null) {
            TestTables.dropOutbox(table);
        }
    }

    @Test
    void jedisSevenZeroStopsTheStartNamingThePin(CapturedOutput output) {
        assertStartReports(output, new String[]{"leasebox.backend=redis", "leasebox.redis.uri=" + TestTables.REDIS_URI},
                "lease-redis needs Jedis 7.2 or later (built with redis.clients:jedis 8.0.2), but the class path has Jedis 7.0.0",
                "Pin redis.clients:jedis 8.0.2: set <jedis.version>8.0.2</jedis.version> in the <properties> of your pom.xml");
    }

    @Test
    void communityHazelcastFiveFiveStopsTheStartNamingThePin(CapturedOutput output) {
        assertStartReports(output, new String[]{"leasebox.backend=hazelcast", "leasebox.hazelcast.members=127.0.0.1:1"},
                "lease-hazelcast needs the CP Subsystem (FencedLock), which Hazelcast's community edition has up to 5.4 "
                        + "(built with com.hazelcast:hazelcast 5.4.0), but the class path has community Hazelcast 5.5.0",
                "Pin com.hazelcast:hazelcast 5.4.0: set <hazelcast.version>5.4.0</hazelcast.version> in the <properties> of your pom.xml");
    }

    private void assertStartReports(CapturedOutput output, String[] backend, String description, String action) {
        table = TestTables.uniqueName("sb_old_clients");
        SpringApplicationBuilder application = new SpringApplicationBuilder(Application.class)
                .web(WebApplicationType.NONE)
                .properties("spring.main.banner-mode=off", "spring.datasource.url=" + TestTables.JDBC_URL,
                        "leasebox.table=" + table, "leasebox.schema.apply=true", "leasebox.provider=log")
                .properties(backend);
        assertThatThrownBy(application::run).isNotNull();
        String report = output.getOut() + output.getErr();
        assertThat(report).contains("APPLICATION FAILED TO START");
        String afterDescription = report.substring(report.indexOf("Description:"));
        assertThat(afterDescription).startsWith("Description:" + System.lineSeparator() + System.lineSeparator() + description);
        String afterAction = afterDescription.substring(afterDescription.indexOf("Action:"));
        assertThat(afterAction).startsWith("Action:" + System.lineSeparator() + System.lineSeparator() + action);
    }
}
