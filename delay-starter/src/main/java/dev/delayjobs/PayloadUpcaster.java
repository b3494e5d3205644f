package dev.delayjobs;

import java.util.function.UnaryOperator;

import tools.jackson.databind.JsonNode;

/**
 * Turns a stored payload of {@link #type()} at version {@link #fromVersion()} into its form at the
 * next version, as a JSON tree. Declare one bean per step: the starter chains them from the
 * version a job was published at up to the version of its handler's payload type
 * ({@link PayloadVersion}) before reading the payload, and refuses to start when a handler's type
 * has a gap in its chain.
 *
 * <pre>{@code
 * @Bean
 * PayloadUpcaster orderTimeoutV1() {
 *     return PayloadUpcaster.of(OrderTimeout.class, 1, json -> ((ObjectNode) json).put("currency", "EUR"));
 * }
 * }</pre>
 *
 * An upcaster sees payloads that may hold personal data: what it throws goes to the job's last
 * error by its class name only.
 */
public interface PayloadUpcaster {

    /**
     * The payload type whose stored form this changes.
     *
     * @return the handler's payload type
     */
    Class<?> type();

    /**
     * The version it reads.
     *
     * @return 1 or more; it returns the form of {@code fromVersion() + 1}
     */
    int fromVersion();

    /**
     * The payload at the next version. It may change {@code payload} in place and return it. An
     * exception sends the job to the dead set (running it again would fail again).
     *
     * @param payload the stored payload at {@link #fromVersion()}, as a JSON tree
     * @return the payload at {@code fromVersion() + 1}
     */
    JsonNode upcast(JsonNode payload);

    /**
     * An upcaster of {@code type} from {@code fromVersion} to the next, doing {@code step}.
     *
     * @param type the payload type
     * @param fromVersion the version {@code step} reads, 1 or more
     * @param step turns a payload at {@code fromVersion} into one at the next version
     * @return the upcaster
     */
    static PayloadUpcaster of(Class<?> type, int fromVersion, UnaryOperator<JsonNode> step) {
        if (type == null || step == null) {
            throw new IllegalArgumentException("type and step must not be null");
        }
        if (fromVersion < 1) {
            throw new IllegalArgumentException("fromVersion must be 1 or more, was " + fromVersion);
        }
        return new PayloadUpcaster() {

            @Override
            public Class<?> type() {
                return type;
            }

            @Override
            public int fromVersion() {
                return fromVersion;
            }

            @Override
            public JsonNode upcast(JsonNode payload) {
                return step.apply(payload);
            }

            @Override
            public String toString() {
                return "PayloadUpcaster.of(" + type.getSimpleName() + ", " + fromVersion + ")";
            }
        };
    }
}
