package dev.delayjobs.core;

import java.lang.annotation.Annotation;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.annotation.JsonProperty;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.PropertyNamingStrategy;

/**
 * The fields a record payload must have: every component, unless it is an {@code Optional} or
 * annotated {@code @Nullable} (any annotation of that name: JSpecify's, Jakarta's, Spring's).
 * Jackson alone would construct the record with {@code null} (or {@code 0}) for a missing field,
 * so a payload of the wrong contract would run and be acked; this check turns it into a clear
 * failure. Extra fields stay allowed (the mapper's setting), which is how a payload evolves.
 */
final class RecordPayloadContract {

    private final ObjectMapper mapper;
    private final Map<Class<?>, List<String>> requiredFields = new ConcurrentHashMap<>();

    RecordPayloadContract(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    /** Throws {@link PayloadContractException} naming the first required field the JSON lacks or has as null. */
    void check(JsonNode json, Class<?> record) {
        if (!json.isObject()) {
            return; // the wrong shape: Jackson's own error names it
        }
        for (String field : requiredFields.computeIfAbsent(record, this::required)) {
            JsonNode value = json.get(field);
            if (value == null || value.isNull()) {
                throw new PayloadContractException("payload does not fit " + record.getSimpleName() + ": field '" + field
                        + "' is " + (value == null ? "missing" : "null") + " (declare it Optional or @Nullable if it may"
                        + " be absent, or set delay.consumer.strict-payloads=false)");
            }
        }
    }

    /** Finds the fields {@code record} requires now rather than at its first check (see {@link PayloadCodec#prepare}). */
    void prepare(Class<?> record) {
        requiredFields.computeIfAbsent(record, this::required);
    }

    private List<String> required(Class<?> record) {
        PropertyNamingStrategy naming = mapper.deserializationConfig().getPropertyNamingStrategy();
        List<String> names = new ArrayList<>();
        for (RecordComponent component : record.getRecordComponents()) {
            if (optional(component)) {
                continue;
            }
            JsonProperty renamed = component.getAnnotation(JsonProperty.class);
            String name = component.getName();
            if (renamed != null && !renamed.value().isEmpty()) {
                name = renamed.value();
            }
            else if (naming != null) {
                // the built-in strategies translate the name alone; they ignore the parameter
                name = naming.nameForConstructorParameter(mapper.deserializationConfig(), null, name);
            }
            names.add(name);
        }
        return List.copyOf(names);
    }

    private static boolean optional(RecordComponent component) {
        Class<?> type = component.getType();
        if (type == Optional.class || type == OptionalInt.class || type == OptionalLong.class
                || type == OptionalDouble.class) {
            return true;
        }
        for (Annotation annotation : component.getAnnotatedType().getAnnotations()) {
            if (annotation.annotationType().getSimpleName().equals("Nullable")) {
                return true;
            }
        }
        for (Annotation annotation : component.getAnnotations()) {
            if (annotation.annotationType().getSimpleName().equals("Nullable")) {
                return true;
            }
        }
        return false;
    }

    /** A payload that parses but does not carry what its handler's record requires. */
    static final class PayloadContractException extends IllegalArgumentException {

        PayloadContractException(String message) {
            super(message);
        }
    }
}
