package dev.delayjobs.bridge;

import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;

import org.redisson.client.codec.Codec;
import org.redisson.client.codec.StringCodec;

import dev.delayjobs.core.PayloadCodec;

/** {@code StringCodec} holding JSON text: read and written with the application's JSON mapper, like native payloads. */
final class JsonTextFormat implements ElementFormat {

    private final PayloadCodec payloads;

    JsonTextFormat(PayloadCodec payloads) {
        this.payloads = payloads;
    }

    @Override
    public Codec codec() {
        return StringCodec.INSTANCE;
    }

    @Override
    public Object toElement(Object payload) {
        return payloads.write(payload);
    }

    @Override
    public Object read(byte[] value, Type type) throws UnreadableElementException {
        try {
            return payloads.read(new String(value, StandardCharsets.UTF_8), payloads.type(type));
        }
        catch (RuntimeException ex) {
            throw new UnreadableElementException("element is not JSON of " + type.getTypeName() + ": "
                    + PayloadCodec.whyUnreadable(ex), ex);
        }
    }

    @Override
    public String describe() {
        return "StringCodec (JSON text)";
    }
}
