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

/** The enums list every key the default conventions emit, under the names dashboards rely on. */
class DelayObservationKeysTest {

    private final DelayHandlerContext handled = new DelayHandlerContext("orders", "job-1", 2, Map.of());
    private final DelayPublishContext published = new DelayPublishContext("orders", 3);

    @Test
    void theEnumsListEveryLowCardinalityKeyEmitted() {
        Set<String> emitted = keys(DefaultDelayHandlerObservationConvention.INSTANCE.getLowCardinalityKeyValues(handled),
                DefaultDelayPublishObservationConvention.INSTANCE.getLowCardinalityKeyValues(published));
        assertThat(emitted).isEqualTo(names(DelayObservationKeys.LowCardinality.values()));
    }

    @Test
    void theEnumsListEveryHighCardinalityKeyEmitted() {
        Set<String> emitted = keys(DefaultDelayHandlerObservationConvention.INSTANCE.getHighCardinalityKeyValues(handled),
                DefaultDelayPublishObservationConvention.INSTANCE.getHighCardinalityKeyValues(published));
        assertThat(emitted).isEqualTo(names(DelayObservationKeys.HighCardinality.values()));
    }

    @Test
    void theKeyNamesAreThoseDashboardsUse() {
        assertThat(names(DelayObservationKeys.LowCardinality.values()))
                .containsExactlyInAnyOrder("messaging.system", "messaging.operation", "messaging.destination.name");
        assertThat(names(DelayObservationKeys.HighCardinality.values()))
                .containsExactlyInAnyOrder("messaging.message.id", "delay.job.attempt", "messaging.batch.message_count");
        assertThat(DefaultDelayHandlerObservationConvention.INSTANCE.getLowCardinalityKeyValues(handled))
                .containsExactlyInAnyOrder(KeyValue.of("messaging.system", "redis"), KeyValue.of("messaging.operation", "process"),
                        KeyValue.of("messaging.destination.name", "orders"));
        assertThat(DefaultDelayHandlerObservationConvention.INSTANCE.getHighCardinalityKeyValues(handled))
                .containsExactlyInAnyOrder(KeyValue.of("messaging.message.id", "job-1"), KeyValue.of("delay.job.attempt", "2"));
        assertThat(DefaultDelayPublishObservationConvention.INSTANCE.getLowCardinalityKeyValues(published))
                .containsExactlyInAnyOrder(KeyValue.of("messaging.system", "redis"), KeyValue.of("messaging.operation", "publish"),
                        KeyValue.of("messaging.destination.name", "orders"));
        assertThat(DefaultDelayPublishObservationConvention.INSTANCE.getHighCardinalityKeyValues(published))
                .containsExactly(KeyValue.of("messaging.batch.message_count", "3"));
    }

    private static Set<String> keys(KeyValues... all) {
        return Stream.of(all).flatMap(KeyValues::stream).map(KeyValue::getKey).collect(Collectors.toSet());
    }

    private static Set<String> names(KeyName[] names) {
        return Arrays.stream(names).map(KeyName::asString).collect(Collectors.toSet());
    }
}
