package dev.delayjobs.core;

import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;

import org.springframework.core.KotlinDetector;

import dev.delayjobs.payload.PayloadVersionException;
import dev.delayjobs.payload.PayloadVersions;
import dev.delayjobs.payload.Upcasters;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/** Writes payloads to JSON and reads them back as a handler's parameter type, with the application's mapper. */
public final class PayloadCodec {

    private final ObjectMapper mapper;
    private final long maxPayloadBytes;
    /** Null when payloads are read leniently (missing record fields become null or 0). */
    private final RecordPayloadContract contract;
    private final Upcasters upcasters;
    /** Whether the mapper has Jackson's Kotlin module, which holds Kotlin classes to their nullability. */
    private final boolean kotlinModule;

    /**
     * @param strictPayloads whether a record payload missing a required field (or having it null)
     * fails to read, instead of running the handler with null
     */
    public PayloadCodec(ObjectMapper mapper, long maxPayloadBytes, boolean strictPayloads) {
        this(mapper, maxPayloadBytes, strictPayloads, Upcasters.NONE);
    }

    /** A codec that brings payloads stored at an older version up to their type's with {@code upcasters}. */
    public PayloadCodec(ObjectMapper mapper, long maxPayloadBytes, boolean strictPayloads, Upcasters upcasters) {
        this.upcasters = upcasters;
        this.mapper = mapper;
        this.maxPayloadBytes = maxPayloadBytes;
        this.contract = strictPayloads ? new RecordPayloadContract(mapper) : null;
        this.kotlinModule = mapper.registeredModules().stream()
                .anyMatch(module -> module.getClass().getName().equals("tools.jackson.module.kotlin.KotlinModule"));
    }

    /** Writes a payload, or throws {@link IllegalArgumentException} saying why it cannot be stored. */
    public String write(Object payload) {
        if (payload == null) {
            throw new IllegalArgumentException("payload must not be null");
        }
        String json;
        try {
            json = mapper.writeValueAsString(payload);
        }
        catch (JacksonException ex) {
            throw new IllegalArgumentException("payload of type " + payload.getClass().getName()
                    + " cannot be written as JSON: " + ex.getOriginalMessage(), ex);
        }
        long size = json.length() <= maxPayloadBytes / 4 ? json.length() : json.getBytes(StandardCharsets.UTF_8).length;
        if (size > maxPayloadBytes) {
            throw new IllegalArgumentException("payload of type " + payload.getClass().getName() + " is " + size
                    + " bytes as JSON; the maximum is " + maxPayloadBytes + " (delay.max-payload-size)");
        }
        return json;
    }

    /** {@code delay.max-payload-size} in bytes: the longest JSON a payload may have. */
    public long maxPayloadBytes() {
        return maxPayloadBytes;
    }

    public JavaType type(Type type) {
        return mapper.getTypeFactory().constructType(type);
    }

    /**
     * Throws {@link IllegalStateException} when strict payloads cannot be upheld for a handler's
     * payload type: a Kotlin class (its nullability and defaults known only to Kotlin) read by a
     * mapper without Jackson's Kotlin module.
     */
    public void checkReadable(JavaType type) {
        Class<?> raw = type.getRawClass();
        if (contract != null && !kotlinModule && isKotlinClass(raw) && !raw.isEnum() && !raw.isInterface()) {
            throw new IllegalStateException("payload type " + raw.getName() + " is a Kotlin class, and the JSON mapper "
                    + "has no Kotlin module to read it by its nullability and defaults: add "
                    + "tools.jackson.module:jackson-module-kotlin (or dev.delayjobs:delay-kotlin), or set "
                    + "delay.consumer.strict-payloads=false");
        }
    }

    private static boolean isKotlinClass(Class<?> type) {
        return KotlinDetector.isKotlinPresent() && KotlinDetector.isKotlinType(type);
    }

    /**
     * Builds ahead what reading payloads of {@code type} takes: its deserializer (the mapper keeps
     * it), the JSON tree reader and the record's required fields of the strict check, and the classes
     * they load. Left to the first read, that work falls on the first jobs of a cold consumer: one
     * worker builds while the others wait for it (the first 150-400 ms of a burst, measured on 2
     * cores). CPU only, no I/O. A type Jackson cannot read fails here quietly and on its first job
     * as before, with Jackson's message.
     */
    public void prepare(JavaType type) {
        try {
            PayloadVersions.of(type.getRawClass());
            mapper.readerFor(type); // finds (builds and caches) the root deserializer
            if (contract != null && type.getRawClass().isRecord() && !isKotlinClass(type.getRawClass())) {
                contract.prepare(type.getRawClass());
                mapper.readTree("{}"); // the strict check reads a tree first: loads its reader
            }
        }
        catch (RuntimeException ex) {
            // the first job of this type meets the same failure, and reports it
        }
    }

    /**
     * Reads a payload; throws {@link JacksonException} when the JSON does not fit the type, and
     * {@link IllegalArgumentException} when it lacks a field its record requires (strict payloads).
     */
    public Object read(String json, JavaType type) {
        // a Kotlin class (an @JvmRecord data class too) is held to its nullability and defaults by
        // Jackson's Kotlin module, which this check would contradict: its nullable types are not visible here
        if (contract == null || !type.getRawClass().isRecord() || isKotlinClass(type.getRawClass())) {
            return mapper.readValue(json, type);
        }
        JsonNode tree = mapper.readTree(json);
        contract.check(tree, type.getRawClass());
        return mapper.treeToValue(tree, type);
    }

    /**
     * Reads a payload stored at {@code storedVersion} (see {@link PayloadVersions}): at the type's
     * version as {@link #read(String, JavaType)} does, else brought up to it by the upcasters first.
     * Throws {@link PayloadVersionException} when it is newer than the type or a step is missing.
     */
    public Object read(String json, int storedVersion, JavaType type) {
        int version = PayloadVersions.of(type.getRawClass());
        if (storedVersion == version) {
            return read(json, type);
        }
        JsonNode tree = upcasters.upcast(mapper.readTree(json), type.getRawClass(), storedVersion, version);
        if (contract != null && type.getRawClass().isRecord()) {
            contract.check(tree, type.getRawClass());
        }
        return mapper.treeToValue(tree, type);
    }

    /** The upcasters this codec applies. */
    public Upcasters upcasters() {
        return upcasters;
    }

    /**
     * Why a payload could not be read, with none of its text: the payload may hold personal data,
     * and this goes to the log and to the job's last error. The kind of error, the JSON path and
     * the position (or, for a payload that does not fit its record, the field).
     */
    public static String whyUnreadable(RuntimeException ex) {
        if (ex instanceof RecordPayloadContract.PayloadContractException || ex instanceof PayloadVersionException) {
            return ex.getMessage();
        }
        if (!(ex instanceof JacksonException jackson)) {
            return ex.getClass().getName(); // a custom deserializer's message may quote the payload
        }
        StringBuilder why = new StringBuilder(jackson.getClass().getSimpleName());
        if (!jackson.getPath().isEmpty()) {
            why.append(" at $");
            for (JacksonException.Reference step : jackson.getPath()) {
                if (step.getPropertyName() != null) {
                    why.append('.').append(step.getPropertyName());
                }
                else if (step.getIndex() >= 0) {
                    why.append('[').append(step.getIndex()).append(']');
                }
            }
        }
        if (jackson.getLocation() != null && jackson.getLocation().getLineNr() > 0) {
            why.append(" (line ").append(jackson.getLocation().getLineNr()).append(", column ")
                    .append(jackson.getLocation().getColumnNr()).append(')');
        }
        return why.toString();
    }
}
