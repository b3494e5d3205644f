package dev.delayjobs.payload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.delayjobs.PayloadUpcaster;
import dev.delayjobs.PayloadVersion;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** The chain of upcasters of a type, without Redis: steps in order, what a chain may lack, the versions a header holds. */
class UpcastersTest {

    @PayloadVersion(3)
    record Reminder(String orderId) {
    }

    private final JsonMapper mapper = new JsonMapper();

    private static PayloadUpcaster step(int from) {
        return PayloadUpcaster.of(Reminder.class, from, json -> ((ObjectNode) json).put("steps",
                json.path("steps").asString("") + from));
    }

    @Test
    void stepsRunInOrderFromTheStoredVersion() {
        Upcasters upcasters = new Upcasters(List.of(step(2), step(1)));
        JsonNode upcast = upcasters.upcast(mapper.readTree("{\"orderId\":\"7\"}"), Reminder.class, 1, 3);
        assertThat(upcast.get("steps").asString()).isEqualTo("12");
        assertThat(upcasters.upcast(mapper.readTree("{}"), Reminder.class, 2, 3).get("steps").asString()).isEqualTo("2");
    }

    @Test
    void aRetiredOldVersionIsNoMistakeButAGapIs() {
        assertThat(new Upcasters(List.of(step(2))).mistake(Reminder.class)).as("version 1 retired").isNull();
        assertThat(new Upcasters(List.of()).mistake(Reminder.class)).isNull();
        assertThat(new Upcasters(List.of(step(1))).mistake(Reminder.class)).contains("from version 2 to 3");
    }

    @Test
    void aNewerOrUnreachableVersionIsRefusedNamingTheVersions() {
        Upcasters upcasters = new Upcasters(List.of(step(2)));
        assertThatThrownBy(() -> upcasters.upcast(mapper.readTree("{}"), Reminder.class, 4, 3))
                .isInstanceOf(PayloadVersionException.class).hasMessageContaining("payload version 4 of Reminder is newer")
                .hasMessageContaining("(3)");
        assertThatThrownBy(() -> upcasters.upcast(mapper.readTree("{}"), Reminder.class, 1, 3))
                .hasMessageContaining("no upcaster from version 1 to 2");
    }

    @Test
    void theVersionTravelsInAHeaderOnlyAboveOne() {
        assertThat(PayloadVersions.stamped(Map.of(), 1)).isEmpty();
        assertThat(PayloadVersions.stamped(Map.of("traceparent", "x"), 3)).containsEntry("pv", "3").containsEntry("traceparent", "x");
        assertThat(PayloadVersions.stored(Map.of())).isEqualTo(1);
        assertThat(PayloadVersions.stored(Map.of("pv", "3"))).isEqualTo(3);
        assertThat(PayloadVersions.stored(Map.of("pv", "x"))).isZero();
        assertThat(PayloadVersions.of(Reminder.class)).isEqualTo(3);
        assertThat(PayloadVersions.of(String.class)).isEqualTo(1);
    }
}
