package dev.delayjobs.bridge;

import java.lang.reflect.Type;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.redisson.client.codec.Codec;
import org.springframework.core.ResolvableType;

/**
 * A binary codec ({@code Kryo5Codec}, {@code SerializationCodec}, ...), which reads class names
 * from Redis: anyone who can write the list could have it build any class on the class path. It
 * reads through a copy of the codec whose class loader knows only the allowed classes.
 */
final class AllowListedFormat implements ElementFormat {

    private final Codec codec;
    private final Codec reading;
    private final AllowListClassLoader allowed;

    AllowListedFormat(Codec codec, Codec reading, AllowListClassLoader allowed) {
        this.codec = codec;
        this.reading = reading;
        this.allowed = allowed;
    }

    @Override
    public Codec codec() {
        return codec;
    }

    @Override
    public Object toElement(Object payload) {
        return payload;
    }

    @Override
    public Object read(byte[] value, Type type) throws UnreadableElementException {
        allowed.lastRefusal(); // forget a refusal of an earlier element
        ByteBuf buffer = Unpooled.wrappedBuffer(value);
        Object decoded;
        try {
            decoded = reading.getValueDecoder().decode(buffer, null);
        }
        catch (Exception | LinkageError ex) {
            String refused = allowed.lastRefusal();
            throw new UnreadableElementException("element could not be read with " + codec.getClass().getSimpleName()
                    + (refused != null ? ": it names " + refused + ", which is not an allowed class" : ": "
                            + ex.getClass().getSimpleName()), ex);
        }
        finally {
            buffer.release();
        }
        Class<?> expected = ResolvableType.forType(type).toClass();
        if (decoded == null || !expected.isInstance(decoded)) {
            throw new UnreadableElementException("element is a " + (decoded == null ? "null" : decoded.getClass().getName())
                    + ", the handler takes " + type.getTypeName(), null);
        }
        return decoded;
    }

    @Override
    public String describe() {
        return codec.getClass().getSimpleName() + " (classes allowed: " + allowed.describe() + ")";
    }
}
