package dev.delayjobs.bridge;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InvalidClassException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectStreamClass;
import java.lang.reflect.Type;
import java.util.Map;
import java.util.Set;

import org.redisson.client.codec.Codec;

/**
 * Redisson's {@code SerializationCodec} (Java serialization), read through an
 * {@link ObjectInputFilter} that admits only the allowed classes (the JDK's guard against
 * deserialization attacks, checked for every class in the stream before it is instantiated) and
 * holds every array to the {@link ReadLimits}, checked before it is allocated.
 */
final class JavaSerializationFormat implements ElementFormat {

    /**
     * What Java serialization writes besides the values themselves: their supertypes and java.time's
     * proxy; and the arrays ArrayList, HashMap and HashSet (always allowed) ask the filter about
     * before they allocate their storage, whose elements are still checked one by one.
     */
    private static final Set<String> STREAM_CLASSES = Set.of("java.lang.Number", "java.lang.Enum", "java.time.Ser",
            "[Ljava.lang.Object;", "[Ljava.util.Map$Entry;");

    /** Bytes of the stream each value of a primitive array takes. */
    private static final Map<Class<?>, Integer> PRIMITIVE_WIDTHS = Map.of(long.class, 8, double.class, 8, int.class, 4,
            float.class, 4, short.class, 2, char.class, 2, byte.class, 1, boolean.class, 1);

    private final Codec codec;
    private final AllowList allowed;
    private final ReadLimits limits;
    private final ClassLoader classLoader;

    JavaSerializationFormat(Codec codec, AllowList allowed, ReadLimits limits) {
        this.codec = codec;
        this.allowed = allowed;
        this.limits = limits;
        this.classLoader = JavaSerializationFormat.class.getClassLoader();
    }

    @Override
    public Codec codec() {
        return codec;
    }

    @Override
    public Object read(byte[] value, Type type) throws UnreadableElementException {
        ElementFilter filter = new ElementFilter(value.length);
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(value)) {
            @Override
            protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
                return Class.forName(desc.getName(), false, classLoader);
            }
        }) {
            in.setObjectInputFilter(filter);
            return ElementFormats.ofHandlerType(in.readObject(), type);
        }
        catch (UnreadableElementException ex) {
            throw ex;
        }
        catch (InvalidClassException ex) {
            throw new UnreadableElementException("element could not be read with SerializationCodec: "
                    + (filter.refusal != null ? filter.refusal : ex.getMessage()), ex);
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

    /** The allow-list and the limits, for one element; says why it refused. */
    private final class ElementFilter implements ObjectInputFilter {

        private final int length;
        private final ReadLimits.Tally tally;
        private String refusal;

        ElementFilter(int length) {
            this.length = length;
            this.tally = new ReadLimits.Tally(limits, length);
        }

        @Override
        public Status checkInput(FilterInfo info) {
            if (info.depth() > ReadLimits.MAX_DEPTH) {
                return refuse("it nests objects more than " + ReadLimits.MAX_DEPTH + " deep");
            }
            // every object or reference takes a byte of the stream at least: more is a lie
            if (info.references() > length || info.streamBytes() > length) {
                return refuse("it declares more objects than its " + length + " bytes hold");
            }
            Class<?> serialClass = info.serialClass();
            if (serialClass == null) {
                return Status.UNDECIDED; // a back reference
            }
            if (!allowed.allows(serialClass.getName()) && !STREAM_CLASSES.contains(serialClass.getName())) {
                return refuse("it names " + serialClass.getName() + ", which is not an allowed class");
            }
            if (serialClass.isArray() && info.arrayLength() >= 0) {
                String tooMany = array(serialClass.getComponentType(), info.arrayLength(), length - info.streamBytes());
                if (tooMany != null) {
                    return refuse(tooMany);
                }
            }
            return Status.ALLOWED;
        }

        private String array(Class<?> component, long values, long remaining) {
            Integer width = PRIMITIVE_WIDTHS.get(component);
            if (width != null) {
                return tally.declare(values, component.getName() + " values in an array", width, width, remaining);
            }
            // HashMap's and HashSet's bucket tables are sized from the entry count: no bytes of their own
            boolean buckets = component == Map.Entry.class;
            return tally.declare(values, buckets ? "hash buckets" : "elements in an array", buckets ? 0 : 1, 8, remaining);
        }

        private Status refuse(String why) {
            if (refusal == null) {
                refusal = why;
            }
            return Status.REJECTED;
        }
    }
}
