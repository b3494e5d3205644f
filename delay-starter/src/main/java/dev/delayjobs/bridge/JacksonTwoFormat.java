package dev.delayjobs.bridge;

import java.lang.reflect.Type;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.redisson.client.codec.Codec;
import org.redisson.codec.JsonJacksonCodec;

/**
 * Redisson's {@code JsonJacksonCodec} (and {@code TypedJsonJacksonCodec}): JSON with Jackson 2 type
 * information. Read with the codec's own mapper into the handler's type, so a class named in the
 * JSON ({@code @class}) is accepted only where the handler's type has a field of a supertype.
 * Loaded only when Jackson 2 is on the class path.
 */
final class JacksonTwoFormat implements ElementFormat {

    private final JsonJacksonCodec codec;

    JacksonTwoFormat(JsonJacksonCodec codec) {
        this.codec = codec;
    }

    @Override
    public Codec codec() {
        return codec;
    }

    @Override
    public Object read(byte[] value, Type type) throws UnreadableElementException {
        ObjectMapper mapper = codec.getObjectMapper();
        try {
            return mapper.readValue(value, mapper.getTypeFactory().constructType(type));
        }
        catch (Exception ex) {
            throw new UnreadableElementException("element is not " + codec.getClass().getSimpleName() + " JSON of "
                    + type.getTypeName() + ": " + ex.getClass().getSimpleName(), ex);
        }
    }

    @Override
    public String describe() {
        return codec.getClass().getSimpleName();
    }
}
