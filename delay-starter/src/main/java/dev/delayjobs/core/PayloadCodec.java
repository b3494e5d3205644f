package dev.delayjobs.core;

import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.ObjectMapper;

/** Writes payloads to JSON and reads them back as a handler's parameter type, with the application's mapper. */
public final class PayloadCodec {

    private final ObjectMapper mapper;
    private final long maxPayloadBytes;

    public PayloadCodec(ObjectMapper mapper, long maxPayloadBytes) {
        this.mapper = mapper;
        this.maxPayloadBytes = maxPayloadBytes;
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

    public JavaType type(Type type) {
        return mapper.getTypeFactory().constructType(type);
    }

    /** Reads a payload; throws {@link JacksonException} when the JSON does not fit the type. */
    public Object read(String json, JavaType type) {
        return mapper.readValue(json, type);
    }
}
