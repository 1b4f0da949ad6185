package dev.leasebox.chaos.history;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class HistoryEventTest {

    @Test
    void anEventSurvivesItsJsonLine() {
        HistoryEvent e = new HistoryEvent(10, 12, "w\"1", HistoryEvent.CLAIM, 7, 99, 5, 3005, "line\nbreak");

        assertThat(HistoryEvent.parse(e.toJson())).isEqualTo(e);
    }

    @Test
    void aFaultSurvivesItsJsonLine() {
        FaultEvent f = new FaultEvent(10, FaultEvent.PAUSE, "w1", "SIGSTOP pid 1");

        assertThat(FaultEvent.parse(f.toJson())).isEqualTo(f);
        assertThat(f.isInjection()).isTrue();
        assertThat(new FaultEvent(11, FaultEvent.RESUME, "w1", "").isInjection()).isFalse();
        assertThat(new FaultEvent(12, FaultEvent.HOLD, "w2", "held at zookeeper-takeover").isInjection()).isTrue();
        assertThat(new FaultEvent(13, FaultEvent.RELEASE, "w2", "let go").isInjection()).isFalse();
        assertThat(new FaultEvent(14, FaultEvent.CALL_FAILED, "w1", "unlock failed").isInjection()).isTrue();
        assertThat(new FaultEvent(15, FaultEvent.NOT_REACHED, "w1", "no unlock reached").isInjection()).isFalse();
    }

    @Test
    void aTornLastLineIsSkipped(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path file = dir.resolve("h.jsonl");
        HistoryEvent e = HistoryEvent.of(1, "w1", HistoryEvent.OK, 3, 4, "");
        Files.writeString(file, e.toJson() + "\n" + e.toJson().substring(0, 20));

        List<HistoryEvent> read = JsonLinesFile.read(file, HistoryEvent::parse);

        assertThat(read).containsExactly(e);
    }
}
