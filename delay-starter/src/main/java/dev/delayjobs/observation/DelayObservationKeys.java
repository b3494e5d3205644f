package dev.delayjobs.observation;

import io.micrometer.common.docs.KeyName;

/**
 * The key names the default conventions put on the {@code delay.publish} and {@code delay.handler}
 * observations: OpenTelemetry's messaging semantic conventions (v1.44.0) plus the attempt.
 * Dashboards and trace queries depend on these names: a rename keeps the old name for one release,
 * emitted beside the new one with {@code delay.observation.legacy-names=true}.
 */
public final class DelayObservationKeys {

    private DelayObservationKeys() {
    }

    /** Low-cardinality keys (tags of the timers, attributes of the spans) of both observations. */
    public enum LowCardinality implements KeyName {

        /** Always {@code redis}. */
        MESSAGING_SYSTEM("messaging.system"),

        /** {@code send} on {@code delay.publish}, {@code process} on {@code delay.handler}. */
        MESSAGING_OPERATION_TYPE("messaging.operation.type"),

        /** {@code publish} on {@code delay.publish}, {@code process} on {@code delay.handler}. */
        MESSAGING_OPERATION_NAME("messaging.operation.name"),

        /** The queue's name. */
        MESSAGING_DESTINATION_NAME("messaging.destination.name"),

        /**
         * The name before OpenTelemetry's messaging conventions renamed it: {@code publish} or
         * {@code process}. Emitted only with {@code delay.observation.legacy-names=true}.
         * @deprecated use {@link #MESSAGING_OPERATION_TYPE}; removed in the next release.
         */
        @Deprecated
        MESSAGING_OPERATION("messaging.operation");

        private final String key;

        LowCardinality(String key) {
            this.key = key;
        }

        @Override
        public String asString() {
            return key;
        }
    }

    /** High-cardinality keys (span attributes only). */
    public enum HighCardinality implements KeyName {

        /** The job's id: on {@code delay.handler}, and on a {@code delay.publish} of one job. */
        MESSAGING_MESSAGE_ID("messaging.message.id"),

        /** On {@code delay.handler}: the delivery attempt, 1 for the first. */
        JOB_ATTEMPT("delay.job.attempt"),

        /** On a {@code delay.publish} of more than one job: how many jobs the call carried. */
        MESSAGING_BATCH_MESSAGE_COUNT("messaging.batch.message_count");

        private final String key;

        HighCardinality(String key) {
            this.key = key;
        }

        @Override
        public String asString() {
            return key;
        }
    }
}
