package dev.delayjobs.observation;

import io.micrometer.common.docs.KeyName;

/**
 * The key names the default conventions put on the {@code delay.publish} and {@code delay.handler}
 * observations. Dashboards and trace queries depend on these names: they do not change.
 */
public final class DelayObservationKeys {

    private DelayObservationKeys() {
    }

    /** Low-cardinality keys (tags of the timers, attributes of the spans) of both observations. */
    public enum LowCardinality implements KeyName {

        /** Always {@code redis}. */
        MESSAGING_SYSTEM("messaging.system"),

        /** {@code publish} on {@code delay.publish}, {@code process} on {@code delay.handler}. */
        MESSAGING_OPERATION("messaging.operation"),

        /** The queue's name. */
        MESSAGING_DESTINATION_NAME("messaging.destination.name");

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

        /** On {@code delay.handler}: the job's id. */
        MESSAGING_MESSAGE_ID("messaging.message.id"),

        /** On {@code delay.handler}: the delivery attempt, 1 for the first. */
        JOB_ATTEMPT("delay.job.attempt"),

        /** On {@code delay.publish}: how many jobs the publish call carried. */
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
