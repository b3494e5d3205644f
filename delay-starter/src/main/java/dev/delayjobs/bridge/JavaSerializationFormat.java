package dev.delayjobs.bridge;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InvalidClassException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectStreamClass;
import java.lang.reflect.Type;
import java.util.Set;

import org.redisson.client.codec.Codec;

/**
 * Redisson's {@code SerializationCodec} (Java serialization), read through an
 * {@link ObjectInputFilter} that admits only the allowed classes: the JDK's guard against
 * deserialization attacks, checked for every class in the stream before it is instantiated.
 */
final class JavaSerializationFormat implements ElementFormat {

    private static final int MAX_DEPTH = 64;

    /** What Java serialization writes besides the values themselves: their supertypes and java.time's proxy. */
    private static final Set<String> STREAM_CLASSES = Set.of("java.lang.Number", "java.lang.Enum", "java.time.Ser");

    private final Codec codec;
    private final AllowList allowed;
    private final ClassLoader classLoader;

    JavaSerializationFormat(Codec codec, AllowList allowed) {
        this.codec = codec;
        this.allowed = allowed;
        this.classLoader = JavaSerializationFormat.class.getClassLoader();
    }

    @Override
    public Codec codec() {
        return codec;
    }

    @Override
    public Object read(byte[] value, Type type) throws UnreadableElementException {
        String[] refused = new String[1];
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(value)) {
            @Override
            protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
                return Class.forName(desc.getName(), false, classLoader);
            }
        }) {
            in.setObjectInputFilter(info -> {
                if (info.depth() > MAX_DEPTH) {
                    return ObjectInputFilter.Status.REJECTED;
                }
                Class<?> serialClass = info.serialClass();
                if (serialClass == null) {
                    return ObjectInputFilter.Status.UNDECIDED; // an array length or a back reference
                }
                if (allowed.allows(serialClass.getName()) || STREAM_CLASSES.contains(serialClass.getName())) {
                    return ObjectInputFilter.Status.ALLOWED;
                }
                refused[0] = serialClass.getName();
                return ObjectInputFilter.Status.REJECTED;
            });
            return ElementFormats.ofHandlerType(in.readObject(), type);
        }
        catch (UnreadableElementException ex) {
            throw ex;
        }
        catch (InvalidClassException ex) {
            throw new UnreadableElementException("element could not be read with SerializationCodec: "
                    + (refused[0] != null ? "it names " + refused[0] + ", which is not an allowed class" : ex.getMessage()), ex);
        }
        catch (Exception | LinkageError ex) {
            throw new UnreadableElementException("element could not be read with SerializationCodec: "
                    + ex.getClass().getSimpleName(), ex);
        }
    }

    @Override
    public String describe() {
        return "SerializationCodec (classes allowed: " + allowed.describe() + ")";
    }
}
