package dev.delayjobs.observation;

import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.common.docs.KeyName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The default conventions emit OpenTelemetry's messaging keys (semantic conventions v1.44.0), the
 * enums list every key they emit, and the legacy names come only when asked for. No Redis: the
 * conventions are pure functions of the contexts.
 */
class DelayObservationKeysTest {

    private final DelayHandlerContext handled = new DelayHandlerContext("orders", "job-1", 2, Map.of());
    private final DelayPublishContext batch = new DelayPublishContext("orders", 3);
    private final DelayPublishContext single = singlePublish();

    private final DefaultDelayHandlerObservationConvention handler = DefaultDelayHandlerObservationConvention.INSTANCE;
    private final DefaultDelayPublishObservationConvention publish = DefaultDelayPublishObservationConvention.INSTANCE;
    private final DefaultDelayHandlerObservationConvention legacyHandler = new DefaultDelayHandlerObservationConvention(true);
    private final DefaultDelayPublishObservationConvention legacyPublish = new DefaultDelayPublishObservationConvention(true);

    @Test
    void aHandlerCallIsAProcessOperationOnTheQueueNamingTheJob() {
        assertThat(handler.getName()).isEqualTo("delay.handler");
        assertThat(handler.getContextualName(handled)).isEqualTo("process orders");
        assertThat(handler.getLowCardinalityKeyValues(handled)).containsExactlyInAnyOrder(KeyValue.of("messaging.system", "redis"),
                KeyValue.of("messaging.operation.type", "process"), KeyValue.of("messaging.operation.name", "process"),
                KeyValue.of("messaging.destination.name", "orders"));
        assertThat(handler.getHighCardinalityKeyValues(handled))
                .containsExactlyInAnyOrder(KeyValue.of("messaging.message.id", "job-1"), KeyValue.of("delay.job.attempt", "2"));
    }

    @Test
    void aPublishIsASendOperationWithTheJobIdForOneJobAndTheCountForABatch() {
        assertThat(publish.getName()).isEqualTo("delay.publish");
        assertThat(publish.getContextualName(batch)).isEqualTo("publish orders");
        for (DelayPublishContext context : new DelayPublishContext[] { single, batch }) {
            assertThat(publish.getLowCardinalityKeyValues(context)).containsExactlyInAnyOrder(KeyValue.of("messaging.system", "redis"),
                    KeyValue.of("messaging.operation.type", "send"), KeyValue.of("messaging.operation.name", "publish"),
                    KeyValue.of("messaging.destination.name", "orders"));
        }
        assertThat(publish.getHighCardinalityKeyValues(single)).containsExactly(KeyValue.of("messaging.message.id", "job-9"));
        assertThat(publish.getHighCardinalityKeyValues(batch)).containsExactly(KeyValue.of("messaging.batch.message_count", "3"));
    }

    @Test
    void theOldOperationKeyComesOnlyWithLegacyNames() {
        assertThat(keys(handler.getLowCardinalityKeyValues(handled), publish.getLowCardinalityKeyValues(batch)))
                .doesNotContain("messaging.operation");
        assertThat(legacyHandler.getLowCardinalityKeyValues(handled)).contains(KeyValue.of("messaging.operation", "process"))
                .containsAll(handler.getLowCardinalityKeyValues(handled));
        assertThat(legacyPublish.getLowCardinalityKeyValues(batch)).contains(KeyValue.of("messaging.operation", "publish"))
                .containsAll(publish.getLowCardinalityKeyValues(batch));
        assertThat(legacyHandler.getContextualName(handled)).as("a span has one name: the current one")
                .isEqualTo("process orders");
    }

    @Test
    void theEnumsListEveryKeyEmitted() {
        Set<String> low = keys(legacyHandler.getLowCardinalityKeyValues(handled), legacyPublish.getLowCardinalityKeyValues(batch));
        assertThat(low).isEqualTo(names(DelayObservationKeys.LowCardinality.values()));
        Set<String> high = keys(handler.getHighCardinalityKeyValues(handled), publish.getHighCardinalityKeyValues(batch),
                publish.getHighCardinalityKeyValues(single));
        assertThat(high).isEqualTo(names(DelayObservationKeys.HighCardinality.values()));
        assertThat(names(DelayObservationKeys.LowCardinality.values())).containsExactlyInAnyOrder("messaging.system",
                "messaging.operation.type", "messaging.operation.name", "messaging.destination.name", "messaging.operation");
        assertThat(high).containsExactlyInAnyOrder("messaging.message.id", "delay.job.attempt", "messaging.batch.message_count");
    }

    private static DelayPublishContext singlePublish() {
        DelayPublishContext context = new DelayPublishContext("orders", 1);
        context.setJobId("job-9");
        return context;
    }

    private static Set<String> keys(KeyValues... all) {
        return Stream.of(all).flatMap(KeyValues::stream).map(KeyValue::getKey).collect(Collectors.toSet());
    }

    private static Set<String> names(KeyName[] names) {
        return Arrays.stream(names).map(KeyName::asString).collect(Collectors.toSet());
    }
}
